import type { Executor, Index, ModelClass, TableDescriptionRow } from "tempest-db-js";
import {
  addColumn,
  column,
  createIndexes,
  createTable,
  describeTable,
  tableMeta,
  UnsupportedFeatureError,
  ValidationError,
} from "tempest-db-js";
import { withQueueIndexes } from "./ensure-queue-schema.js";
import { queueIndexes } from "./queue-indexes.js";
import type { OptionalField, QueueOptions } from "./queue-options.js";
import { optionalFields } from "./queue-options.js";
import type { QueueTable } from "./queue-table.js";
import { queueTable } from "./queue-table.js";

/** Something the database's table lacks, and the statement that adds it. */
export interface SchemaProblem {
  readonly kind: "table" | "column" | "index";
  /** The column's or index's name in the database (the table's for `table`). */
  readonly name: string;
  /** Required: the recipes fail or go wrong without it. Otherwise a feature is off, or a query scans. */
  readonly required: boolean;
  /** What is off or wrong without it. */
  readonly effect: string;
  /** The DDL that adds it, compiled for this dialect (several statements for a missing table). */
  readonly ddl: readonly string[];
}

export interface QueueSchemaReport {
  /** No required column or index is missing. */
  readonly ok: boolean;
  readonly problems: readonly SchemaProblem[];
  /** The optional features and whether they are on (the model has the column and so does the table). */
  readonly features: Readonly<QueueFeatures>;
}

/** The optional features, each on when its columns exist (see docs/queue-recipes.md). */
export interface QueueFeatures {
  readonly claimToken: boolean;
  readonly lastError: boolean;
  /** Claims take the lowest priority first (the priority column). */
  readonly priority: boolean;
  /** Poison messages counted and dead-lettered, dead reasons and the attempt history (reclaims, deadReason, attemptHistory). */
  readonly deadLetter: boolean;
}

/** Every feature off: a table the catalog cannot describe (or that does not exist yet). */
export const NO_FEATURES: QueueFeatures = Object.freeze({
  claimToken: false,
  lastError: false,
  priority: false,
  deadLetter: false,
});

const FEATURE: Record<OptionalField, string> = {
  claimToken: "fencing by a claim token: without it `attempts` is also the fence, so a reclaim after a lease expiry counts as an attempt",
  lastError: "recording the last delivery error's text",
  lastErrorAt: "recording when the last delivery failed",
  priority: "priorities: without it claims take the message due first, whatever it is",
  reclaims:
    "counting lease expiries apart from failures, and dead-lettering a message that crashes or hangs every worker after `maxReclaims` of them",
  deadReason: "telling dead messages apart by why (failed, reclaims, cancelled); cancel needs it",
  attemptHistory: "keeping the history of the last attempts of a message",
};

/** The optional columns as the recipes would declare them. */
const OPTIONAL_COLUMNS = {
  claimToken: () => column.integer().notNull().default(0),
  lastError: () => column.text(),
  lastErrorAt: () => column.datetime(),
  priority: () => column.integer().notNull().default(0),
  reclaims: () => column.integer().notNull().default(0),
  deadReason: () => column.text(),
  attemptHistory: () => column.json(),
} as const;

/** The model with every optional queue column it lacks added (for the DDL that adds them, and withQueueFeatures). */
export function withOptionalColumns(model: ModelClass<any>, q: QueueTable): ModelClass<any> {
  const Base = model as unknown as new () => Record<string, unknown>;
  const missing = optionalFields.filter((role) => !q.has[role]);
  const f = q.f;
  const table = class extends Base {
    static tablename = model.tablename;
    static naming = model.naming;
    constructor() {
      super();
      for (const role of missing) this[f[role]] = OPTIONAL_COLUMNS[role]();
    }
  };
  Object.defineProperty(table, "name", { value: model.name });
  return table as unknown as ModelClass<any>;
}

/**
 * Compares the table in the database with what the recipes need: the required columns, the optional
 * ones (each switches a feature on) and the three indexes (`queueIndexes`). Every missing one is
 * reported with the DDL that adds it. Reads the catalog only; changes nothing.
 */
export async function verifyQueueSchema(db: Executor, model: ModelClass<any>, options: QueueOptions = {}): Promise<QueueSchemaReport> {
  const q = queueTable(model, options);
  const rows = (await db.execute(describeTable(model)).all()) as TableDescriptionRow[];
  const compile = (statement: Parameters<Executor["compile"]>[0]) => db.compile(statement).sql;
  const problems: SchemaProblem[] = [];
  if (rows.length === 0) {
    const full = withQueueIndexes(model, options);
    problems.push({
      kind: "table",
      name: q.meta.name,
      required: true,
      effect: "the queue's table does not exist",
      ddl: [compile(createTable(full)), ...createIndexes(full).map(compile)],
    });
    return { ok: false, problems, features: NO_FEATURES };
  }
  const columns = new Set(rows.filter((r) => r.kind === "column").map((r) => r.name));
  const meta = q.meta;
  const full = withOptionalColumns(model, q);
  const fullMeta = tableMeta(full);
  for (const [role, field] of Object.entries(q.f) as [keyof QueueTable["f"], string][]) {
    const optional = (optionalFields as readonly string[]).includes(role);
    const declared = meta.byField.get(field);
    if (optional && !declared) {
      const name = fullMeta.byField.get(field)?.name ?? field;
      if (!columns.has(name)) {
        problems.push({
          kind: "column",
          name,
          required: false,
          effect: `off: ${FEATURE[role as OptionalField]}`,
          ddl: [compile(addColumn(full, field))],
        });
      }
      continue;
    }
    if (declared && !columns.has(declared.name)) {
      problems.push({
        kind: "column",
        name: declared.name,
        required: true,
        effect: optional
          ? `the model declares ${field}, so every claim and settlement names a column the table lacks`
          : `the queue's ${role} column is missing: claims and settlements fail`,
        ddl: [compile(addColumn(model, field))],
      });
    }
  }
  for (const problem of indexProblems(rows, model, options)) {
    problems.push({ ...problem, ddl: [compile(problem.statement)] });
  }
  // Other columns of the model are not the recipes' business, but one the table lacks fails every insert.
  for (const c of meta.columns) {
    if (!columns.has(c.name) && !Object.values(q.f).includes(c.field)) {
      problems.push({
        kind: "column",
        name: c.name,
        required: true,
        effect: `the model's ${c.field} column is missing: every insert fails`,
        ddl: [compile(addColumn(model, c.field))],
      });
    }
  }
  const on = (role: OptionalField) => q.has[role] && columns.has(meta.byField.get(q.f[role])?.name ?? "");
  return {
    ok: problems.every((p) => !p.required),
    problems,
    features: {
      claimToken: on("claimToken"),
      lastError: on("lastError") && on("lastErrorAt"),
      priority: on("priority"),
      deadLetter: on("reclaims") && on("deadReason") && on("attemptHistory"),
    },
  };
}

/** The queue indexes the table lacks, matched by column list (and uniqueness), not by name. */
function indexProblems(rows: readonly TableDescriptionRow[], model: ModelClass<any>, options: QueueOptions) {
  const indexes = new Map<string, { unique: boolean; columns: string[] }>();
  for (const r of rows) {
    if (r.kind !== "index") continue;
    let index = indexes.get(r.name);
    if (!index) indexes.set(r.name, (index = { unique: Number(r.is_unique) === 1, columns: [] }));
    index.columns.push(r.column_name);
  }
  const meta = tableMeta(model);
  const out: { kind: "index"; name: string; required: boolean; effect: string; statement: ReturnType<typeof createIndexes>[number] }[] = [];
  const wanted: readonly Index<any>[] = queueIndexes(model, options);
  const statements = createIndexes(indexModel(model, wanted), { ifNotExists: true });
  wanted.forEach((index, i) => {
    const names = index.spec.fields.map((field) => meta.byField.get(field)?.name ?? field);
    const found = [...indexes.values()].some(
      (have) =>
        (!index.spec.unique || have.unique) &&
        (index.spec.unique ? have.columns.length === names.length : have.columns.length >= names.length) &&
        names.every((n, k) => have.columns[k] === n),
    );
    if (found) return;
    const unique = index.spec.unique === true;
    out.push({
      kind: "index",
      name: index.spec.name,
      required: unique,
      effect: unique
        ? "no unique index on (consumer, idempotencyKey): enqueue cannot skip repeated keys (MySQL's INSERT IGNORE would store them twice)"
        : `slower: ${index.spec.name.endsWith("_lease") ? "reclaims" : "claims"} scan the table`,
      statement: statements[i] as ReturnType<typeof createIndexes>[number],
    });
  });
  return out;
}

/** The model with exactly these indexes (for their CREATE INDEX statements). */
function indexModel(model: ModelClass<any>, indexes: readonly Index<any>[]): ModelClass<any> {
  const Base = model as unknown as new () => object;
  const table = class extends Base {
    static tablename = model.tablename;
    static naming = model.naming;
    static indexes = indexes;
  };
  return table as unknown as ModelClass<any>;
}

const checked = new WeakMap<object, Set<string>>();

/**
 * Before a table's first enqueue on an engine: the unique idempotency index must exist, or repeated
 * keys would be stored twice where the insert skips collisions without naming an index (MySQL's
 * INSERT IGNORE). Checked once per engine and table; a dialect without a catalog query is not checked.
 */
export async function assertIdempotencyIndex(db: Executor, q: QueueTable): Promise<void> {
  const owner = db.engineKey;
  let tables = checked.get(owner);
  if (tables?.has(q.meta.name)) return;
  let rows: TableDescriptionRow[];
  try {
    rows = (await db.execute(describeTable(q.model)).all()) as TableDescriptionRow[];
  } catch (error) {
    if (UnsupportedFeatureError.isInstance(error)) return;
    throw error;
  }
  // No table: the insert itself will say so, and the check runs again next time.
  if (rows.length === 0) return;
  {
    const missing = indexProblems(rows, q.model, {
      fields: q.f,
    }).find((p) => p.required);
    if (missing) {
      const ddl = db.compile(missing.statement).sql;
      throw new ValidationError(
        `enqueue: ${q.meta.name} has no unique index on (${q.f.consumer}, ${q.f.idempotencyKey}), so repeated keys would not be skipped. Add it: ${ddl}`,
      );
    }
  }
  if (!tables) checked.set(owner, (tables = new Set()));
  tables.add(q.meta.name);
}
