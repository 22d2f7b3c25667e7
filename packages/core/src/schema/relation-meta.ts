import { ValidationError } from "../errors.js";
import type { ColumnKind, ColumnMeta } from "./column-meta.js";
import type { ModelClass } from "./model.js";
import type { RelationKind, RelationSpec } from "./relation.js";
import type { TableMeta } from "./table-meta.js";
import { tableMeta } from "./table-meta.js";

/** The join model of a many-to-many relation: `from` references the owner, `to` the target. */
export interface RelationThrough {
  readonly table: TableMeta;
  readonly from: ColumnMeta;
  readonly to: ColumnMeta;
  /** The target's column `to` references. */
  readonly targetKey: ColumnMeta;
}

/**
 * A relation resolved against the models it names. Loading it reads the owner rows' `key` values and
 * selects the target rows whose `link` (a target column, or the join model's `from`) is one of them.
 */
export interface RelationMeta {
  readonly name: string;
  readonly kind: RelationKind;
  readonly owner: TableMeta;
  readonly target: TableMeta;
  readonly many: boolean;
  /** The owner's column whose values are looked up. */
  readonly key: ColumnMeta;
  /** The column compared with the keys: the target's, or the join model's (`through.from`). */
  readonly link: ColumnMeta;
  readonly through: RelationThrough | undefined;
}

/** A relation field as the model declares it, kept until the relation is resolved. */
export interface DeclaredRelation {
  readonly field: string;
  readonly spec: RelationSpec;
}

const declared = new WeakMap<
  TableMeta,
  { readonly relations: readonly DeclaredRelation[]; readonly byColumn: ReadonlyMap<unknown, ColumnMeta> }
>();
const resolved = new WeakMap<TableMeta, ReadonlyMap<string, RelationMeta>>();
const NONE: ReadonlyMap<string, RelationMeta> = new Map();

/** Called by tableMeta while it reads a model: its relation fields, and its columns by the builder object each field held. */
export function declareRelations(
  table: TableMeta,
  relations: readonly DeclaredRelation[],
  byColumn: ReadonlyMap<unknown, ColumnMeta>,
): void {
  if (relations.length > 0) declared.set(table, { relations, byColumn });
}

/** The model's relations by field name, resolved (and checked) on first use. */
export function relationsOf(table: TableMeta): ReadonlyMap<string, RelationMeta> {
  let map = resolved.get(table);
  if (map !== undefined) return map;
  const own = declared.get(table);
  if (own === undefined) return NONE;
  const out = new Map<string, RelationMeta>();
  for (const r of own.relations) out.set(r.field, Object.freeze(resolveRelation(table, r, own.byColumn)));
  map = out;
  resolved.set(table, map);
  return map;
}

export function relationOf(table: TableMeta, name: string, where: string): RelationMeta {
  const meta = relationsOf(table).get(name);
  if (meta === undefined) {
    throw new ValidationError(`${where}: ${modelName(table)} has no relation "${name}"`);
  }
  return meta;
}

function modelName(table: TableMeta): string {
  return table.model.name || table.name;
}

function resolveRelation(owner: TableMeta, declaredRelation: DeclaredRelation, byColumn: ReadonlyMap<unknown, ColumnMeta>): RelationMeta {
  const { field, spec } = declaredRelation;
  const label = `${modelName(owner)}.${field} (${spec.kind})`;
  refuseMultiColumn(spec, label);
  const target = modelOf(spec.target, label, "its related model");
  const base = { name: field, kind: spec.kind, owner, target };
  switch (spec.kind) {
    case "belongsTo": {
      const fk = spec.column === undefined ? undefined : byColumn.get(spec.column);
      if (fk === undefined) {
        throw new ValidationError(`${label}: the key must be a column of ${modelName(owner)} declared above the relation (this.<field>)`);
      }
      const key = referencedColumn(fk, target, label);
      checkKinds(fk, key, label);
      return { ...base, many: false, key: fk, link: key, through: undefined };
    }
    case "hasOne":
    case "hasMany": {
      const fk = foreignKeyOn(target, owner, spec.foreignKey, label);
      const key = referencedColumn(fk, owner, label);
      checkKinds(key, fk, label);
      return { ...base, many: spec.kind === "hasMany", key, link: fk, through: undefined };
    }
    case "manyToMany": {
      if (spec.through === undefined) throw new ValidationError(`${label}: needs { through: () => JoinModel }`);
      const join = modelOf(spec.through, label, "its join model");
      if (join === target || join === owner)
        throw new ValidationError(`${label}: the join model must be a third model, not ${modelName(join)}`);
      const from = foreignKeyOn(join, owner, spec.from, `${label} from`);
      const to = foreignKeyOn(join, target, spec.to, `${label} to`, from);
      if (from === to) throw new ValidationError(`${label}: from and to name the same field ${modelName(join)}.${from.field}`);
      const key = referencedColumn(from, owner, label);
      const targetKey = referencedColumn(to, target, label);
      checkKinds(key, from, label);
      checkKinds(targetKey, to, label);
      return { ...base, many: true, key, link: from, through: Object.freeze({ table: join, from, to, targetKey }) };
    }
    default:
      throw new ValidationError(`${label}: unknown relation kind`);
  }
}

const SINGLE_COLUMN = "a relation joins on one column: multi-column (composite) keys are not supported";

/** A list of columns or fields where one is expected: the multi-column key no relation supports (see docs/relations.md). */
function refuseMultiColumn(spec: RelationSpec, label: string): void {
  const keys: [string, unknown][] = [
    ["key", spec.column],
    ["foreign key", spec.foreignKey],
    ["from", spec.from],
    ["to", spec.to],
  ];
  for (const [what, value] of keys) {
    if (Array.isArray(value)) throw new ValidationError(`${label}: its ${what} is a list of ${value.length}; ${SINGLE_COLUMN}`);
  }
}

/** A model thunk, called and read: a ValidationError naming the relation when it throws or names no model. */
function modelOf(thunk: () => unknown, label: string, what: string): TableMeta {
  let model: unknown;
  try {
    model = thunk();
  } catch (error) {
    throw new ValidationError(
      `${label}: ${what} could not be read (${error instanceof Error ? error.message : String(error)}); a class declared later in the file is available only once the module has run, so read the models after it`,
      { cause: error },
    );
  }
  if (typeof model !== "function")
    throw new ValidationError(`${label}: ${what} must be a model class, got ${model === null ? "null" : typeof model}`);
  try {
    return tableMeta(model as ModelClass);
  } catch (error) {
    if (error instanceof ValidationError) throw new ValidationError(`${label}: ${what}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** The model a column's references() names, or undefined when it has none. */
function referencedModel(column: ColumnMeta): unknown {
  const ref = column.references;
  if (ref === undefined) return undefined;
  try {
    return ref.model();
  } catch {
    return undefined;
  }
}

/**
 * The column of `on` that references `to`: the named field (whose references(), if any, must name
 * `to`), or the only column of `on` whose references() names `to`.
 */
function foreignKeyOn(on: TableMeta, to: TableMeta, field: string | undefined, label: string, other?: ColumnMeta): ColumnMeta {
  if (field !== undefined) {
    const column = on.byField.get(field);
    if (column === undefined) throw new ValidationError(`${label}: ${modelName(on)} has no column "${field}"`);
    const named = referencedModel(column);
    if (named !== undefined && named !== to.model) {
      throw new ValidationError(`${label}: ${modelName(on)}.${field} references ${nameOf(named)}, not ${modelName(to)}`);
    }
    return column;
  }
  const candidates = on.columns.filter((c) => c !== other && referencedModel(c) === to.model);
  if (candidates.length === 1) return candidates[0] as ColumnMeta;
  if (candidates.length === 0) {
    throw new ValidationError(`${label}: no column of ${modelName(on)} references ${modelName(to)}; name the foreign-key field`);
  }
  throw new ValidationError(
    `${label}: ambiguous, ${candidates.map((c) => `${modelName(on)}.${c.field}`).join(" and ")} all reference ${modelName(to)}; name the foreign-key field`,
  );
}

function nameOf(model: unknown): string {
  return typeof model === "function" && model.name ? model.name : String(model);
}

/** The column a foreign key points at on `target`: its references() field, else the single primary key. */
function referencedColumn(fk: ColumnMeta, target: TableMeta, label: string): ColumnMeta {
  const named = referencedModel(fk);
  if (named !== undefined && named !== target.model) {
    throw new ValidationError(`${label}: ${fk.table}.${fk.field} references ${nameOf(named)}, not ${modelName(target)}`);
  }
  const field = named === undefined ? undefined : fk.references?.field;
  if (field !== undefined) {
    const column = target.byField.get(field);
    if (column === undefined) throw new ValidationError(`${label}: ${modelName(target)} has no column "${field}"`);
    return column;
  }
  if (target.primaryKey.length !== 1) {
    throw new ValidationError(
      target.primaryKey.length === 0
        ? `${label}: ${modelName(target)} has no primary key; reference one of its columns with references(() => Model, "field")`
        : `${label}: ${modelName(target)} has a composite primary key (${target.primaryKey.map((c) => c.field).join(", ")}), and ${SINGLE_COLUMN}; reference one unique column with references(() => Model, "field")`,
    );
  }
  return target.primaryKey[0] as ColumnMeta;
}

/** Key kinds whose JavaScript values compare equal when the stored values do. */
const FAMILY: Partial<Record<ColumnKind, string>> = { text: "text", varchar: "text" };

function checkKinds(key: ColumnMeta, link: ColumnMeta, label: string): void {
  const a = FAMILY[key.kind] ?? key.kind;
  const b = FAMILY[link.kind] ?? link.kind;
  if (a !== b) {
    throw new ValidationError(
      `${label}: ${key.table}.${key.field} is ${key.kind} but ${link.table}.${link.field} is ${link.kind}; the keys must have one type`,
    );
  }
  if (key.kind === "bytes" || key.kind === "json" || key.kind === "real") {
    throw new ValidationError(`${label}: a ${key.kind} column cannot be a relation key`);
  }
}
