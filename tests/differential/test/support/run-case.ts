import type { ModelClass, WhereArg } from "tempest-db-js";
import { and, column, dropTable, insert, Model, not, or, select, TempestError, ValidationError } from "tempest-db-js";
import type { Target } from "./databases.js";
import type { ColumnSpec, Tree } from "./rules.js";
import { canonical, ENUM_VALUES, evaluate, order, refusal, treeRefusal, VARCHAR_LENGTH } from "./rules.js";

function builder(spec: ColumnSpec) {
  const b = (() => {
    switch (spec.kind) {
      case "integer":
        return column.integer();
      case "bigint":
        return column.bigint();
      case "real":
        return column.real();
      case "numeric":
        return column.numeric();
      case "numeric10_2":
        return column.numeric(10, 2);
      case "text":
        return column.text();
      case "varchar":
        return column.varchar(VARCHAR_LENGTH);
      case "uuid":
        return column.uuid();
      case "enum":
        return column.enum(...ENUM_VALUES);
      case "boolean":
        return column.boolean();
      case "date":
        return column.date();
      case "datetime":
        return column.datetime();
    }
  })();
  return spec.nullable ? b : b.notNull();
}

export function modelOf(tablename: string, columns: readonly ColumnSpec[]): ModelClass {
  return class Differential extends Model {
    static tablename = tablename;
    id = column.integer().primaryKey();
    constructor() {
      super();
      for (const spec of columns) (this as Record<string, unknown>)[spec.field] = builder(spec);
    }
  } as unknown as ModelClass;
}

export function toWhere(tree: Tree): WhereArg<any> {
  switch (tree.t) {
    case "leaf":
      return { [tree.field]: { [tree.op]: tree.value } };
    case "and":
      return and(...tree.items.map(toWhere));
    case "or":
      return or(...tree.items.map(toWhere));
    case "not":
      return not(toWhere(tree.item));
  }
}

/** A short, exact description of a value for a failure message. */
export function show(value: unknown): string {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "Invalid Date" : `Date(${value.toISOString()})`;
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "string")
    return value.length > 40 ? `${JSON.stringify(value.slice(0, 20))}...(${value.length} chars)` : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(show).join(", ")}]`;
  if (value === undefined) return "undefined";
  if (typeof value === "number" && Object.is(value, -0)) return "-0";
  return String(value);
}

export function showTree(tree: Tree): string {
  switch (tree.t) {
    case "leaf":
      return `{${tree.field}: {${tree.op}: ${show(tree.value)}}}`;
    case "not":
      return `not(${showTree(tree.item)})`;
    default:
      return `${tree.t}(${tree.items.map(showTree).join(", ")})`;
  }
}

/** Equal as the rules read values back (-0 and 0 are one real; a Date by its instant). */
function key(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (value instanceof Date) return `D${value.getTime()}`;
  return `${typeof value}:${String(value)}`;
}

interface Outcome {
  readonly refused: boolean;
  readonly why: string;
  readonly value: unknown;
}

/** Runs a step: a ValidationError at build or compile time is a refusal; any other error is a failure to report. */
async function attempt(run: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { refused: false, why: "", value: await run() };
  } catch (error) {
    if (ValidationError.isInstance(error)) return { refused: true, why: error.message, value: undefined };
    const name = error instanceof TempestError ? error.constructor.name : "Error";
    return { refused: false, why: "", value: new Failure(`${name}: ${(error as Error).message.slice(0, 300)}`) };
  }
}

class Failure {
  constructor(readonly message: string) {}
}

export interface Case {
  readonly sample: { readonly columns: ColumnSpec[]; readonly rows: Record<string, unknown>[] };
  readonly trees: readonly Tree[];
  readonly order?: { readonly field: string; readonly direction: "asc" | "desc" } | undefined;
}

/** Everything the target answers differently from the rules, as readable lines (empty: it agrees). */
export async function differences(target: Target, c: Case, tablename: string): Promise<string[]> {
  const { engine } = target;
  const { columns, rows } = c.sample;
  const model = modelOf(tablename, columns);
  const byField = new Map(columns.map((col) => [col.field, col]));
  const out: string[] = [];
  const at = target.label;
  await target.prepare();
  await engine.execute(dropTable(model, { ifExists: true })).rowsAffected();
  await engine.createAll([model]);
  const drop = async (found: string[]) => {
    await engine.execute(dropTable(model, { ifExists: true })).rowsAffected();
    return found;
  };

  // Inserts, one row each: a refused row is left out, and the rules say which are.
  const stored: Record<string, unknown>[] = [];
  for (const row of rows) {
    const why = columns.map((col) => (row[col.field] === null ? undefined : refusal(col, row[col.field]))).find(Boolean);
    const result = await attempt(() => engine.execute(insert(model).values(row as never)).rowsAffected());
    const described = `insert ${columns.map((col) => `${col.field} ${col.kind}${col.nullable ? "?" : ""} = ${show(row[col.field])}`).join(", ")}`;
    if (result.value instanceof Failure)
      out.push(`${at}: ${described}: ${result.value.message} (rules: ${why ? `refuse, ${why}` : "store"})`);
    else if (result.refused && !why) out.push(`${at}: ${described}: refused (${result.why.slice(0, 200)}), the rules store it`);
    else if (!result.refused && why) out.push(`${at}: ${described}: stored, the rules refuse it (${why})`);
    if (!result.refused && !why)
      stored.push(Object.fromEntries([["id", row.id], ...columns.map((col) => [col.field, canonical(col, row[col.field])])]));
  }

  // Read back: exactly the canonical values.
  const read = (await engine.execute(select(model).orderBy("id" as never)).all()) as Record<string, unknown>[];
  for (const expected of stored) {
    const actual = read.find((r) => r.id === expected.id);
    for (const col of columns) {
      if (key(actual?.[col.field]) !== key(expected[col.field])) {
        out.push(
          `${at}: ${col.field} ${col.kind} written ${show(rows[(expected.id as number) - 1]?.[col.field])} reads back ${show(actual?.[col.field])}, the rules say ${show(expected[col.field])}`,
        );
      }
    }
  }
  if (out.length > 0) return drop(out);

  // Where trees: the same ids as the oracle, with three-valued logic.
  for (const tree of c.trees) {
    const why = treeRefusal(tree, byField);
    const result = await attempt(async () => {
      const query = select(model, ["id"] as never).where(toWhere(tree) as never);
      return ((await engine.execute(query).all()) as { id: number }[]).map((r) => r.id).sort((a, b) => a - b);
    });
    const expected = stored.filter((r) => evaluate(tree, r, byField) === true).map((r) => r.id as number);
    const described = `where ${showTree(tree)} over ${stored.length} rows`;
    if (result.value instanceof Failure) out.push(`${at}: ${described}: ${result.value.message}`);
    else if (result.refused && !why)
      out.push(`${at}: ${described}: refused (${result.why.slice(0, 200)}), the rules answer ids [${expected}]`);
    else if (!result.refused && why) out.push(`${at}: ${described}: answered, the rules refuse it (${why})`);
    else if (!result.refused && JSON.stringify(result.value) !== JSON.stringify(expected)) {
      out.push(`${at}: ${described}: ids [${result.value as number[]}], the rules say [${expected}]`);
    }
  }

  // Ordering by one column, ties by id.
  if (c.order) {
    const col = byField.get(c.order.field) as ColumnSpec;
    const { direction } = c.order;
    const result = await attempt(async () => {
      const query = select(model, ["id"] as never)
        .orderBy(col.field as never, direction)
        .orderBy("id" as never);
      return ((await engine.execute(query).all()) as { id: number }[]).map((r) => r.id);
    });
    const expected = order(stored, col, direction);
    const values = stored.map((r) => `${r.id}=${show(r[col.field])}`).join(" ");
    if (result.value instanceof Failure || result.refused)
      out.push(`${at}: orderBy ${col.field} ${col.kind} ${direction}: ${result.refused ? result.why : (result.value as Failure).message}`);
    else if (JSON.stringify(result.value) !== JSON.stringify(expected)) {
      out.push(
        `${at}: orderBy(${col.field} ${col.kind}${col.nullable ? "?" : ""}, ${direction}) over ${values}: ids [${result.value as number[]}], the rules say [${expected}]`,
      );
    }
  }
  return drop(out);
}
