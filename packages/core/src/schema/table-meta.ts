import type { CteNode } from "../ast/cte-node.js";
import { textProblem } from "../codec/check-text.js";
import { ValidationError } from "../errors.js";
import { Column } from "./column.js";
import type { ColumnMeta } from "./column-meta.js";
import { Index } from "./index.js";
import type { IndexDeclaration } from "./index-meta.js";
import type { ModelClass } from "./model.js";
import { namingFunction } from "./naming.js";
import { Relation } from "./relation.js";
import type { DeclaredRelation } from "./relation-meta.js";
import { declareRelations, relationsOf } from "./relation-meta.js";

/** A model read once: its table, its columns in declaration order, its indexes. Frozen and cached per class. */
export interface TableMeta {
  readonly model: ModelClass;
  readonly name: string;
  readonly columns: readonly ColumnMeta[];
  readonly byField: ReadonlyMap<string, ColumnMeta>;
  readonly primaryKey: readonly ColumnMeta[];
  /** Its indexes as declared: `modelIndexes(table)` (builder) resolves their predicates. */
  readonly indexes: readonly IndexDeclaration[];
  /** Set when the "table" is a common table expression (see builder/cte): its WITH entry. */
  readonly cte?: CteNode;
}

const cache = new WeakMap<object, TableMeta>();

/** Sources that are not model classes (CTEs): read like tables, never written or created. */
const derived = new WeakSet<object>();

/** Gives a source that is not a model class (a CTE) its table: `tableMeta(source)` then returns it. */
export function registerTableMeta(source: object, meta: TableMeta): void {
  cache.set(source, meta);
  derived.add(source);
}

/** The table of a model a statement writes or creates: refused by name for a CTE, whose rows are computed. */
export function storedTableMeta(model: ModelClass, where: string): TableMeta {
  if (derived.has(model)) {
    throw new ValidationError(`${where}(${model.name}): "${model.name}" is a CTE, not a table; write to the model its select reads`);
  }
  return tableMeta(model);
}

export function tableMeta(model: ModelClass): TableMeta {
  const cached = cache.get(model);
  if (cached) return cached;
  const meta = readModel(model);
  cache.set(model, meta);
  // Relations are checked when the model is first read, once it is cached: a relation back to this
  // model (Customer ↔ Order, Category.children) then finds its columns instead of reading it again.
  try {
    relationsOf(meta);
  } catch (error) {
    cache.delete(model);
    throw error;
  }
  return meta;
}

function readModel(model: ModelClass): TableMeta {
  if (typeof model !== "function") throw new ValidationError("Expected a model class");
  const modelName = model.name || "model";
  const table = model.tablename;
  if (typeof table !== "string" || table.length === 0) {
    throw new ValidationError(`${modelName} needs a static tablename`);
  }
  const toColumnName = namingFunction(model.naming, modelName);
  const instance = new model() as unknown as Record<string, unknown>;
  const columns: ColumnMeta[] = [];
  const relations: DeclaredRelation[] = [];
  const byColumn = new Map<unknown, ColumnMeta>();
  for (const field of Object.keys(instance)) {
    const value = instance[field];
    if (Relation.isRelation(value)) relations.push({ field, spec: value.spec });
    if (!Column.isColumn(value)) continue;
    const spec = value.spec;
    columns.push(
      Object.freeze({
        ...spec,
        field,
        name: spec.dbName ?? toColumnName(field),
        table,
        required: spec.notNull && spec.default === undefined,
      }),
    );
    byColumn.set(value, columns[columns.length - 1] as ColumnMeta);
  }
  if (columns.length === 0) throw new ValidationError(`${modelName} declares no columns`);
  checkName(table, `${modelName}.tablename`);
  const names = new Set<string>();
  for (const c of columns) {
    checkName(c.name, `${modelName}.${c.field}'s column name`);
    if (names.has(c.name)) throw new ValidationError(`${modelName}: two fields map to the column "${c.name}"`);
    names.add(c.name);
  }
  const byField = new Map(columns.map((c) => [c.field, c]));
  const indexes = (model.indexes ?? []).map((declared): IndexDeclaration => {
    if (!Index.isIndex(declared)) throw new ValidationError(`${modelName}.indexes must hold index(...) declarations`);
    const spec = declared.spec;
    if (spec.fields.length === 0) throw new ValidationError(`index ${spec.name} has no fields`);
    checkName(spec.name, `${modelName}'s index name`);
    const cols = spec.fields.map((field) => {
      const col = byField.get(field);
      if (!col) throw new ValidationError(`index ${spec.name}: ${modelName} has no field "${field}"`);
      return col;
    });
    return Object.freeze({ name: spec.name, columns: Object.freeze(cols), unique: spec.unique, where: spec.where });
  });
  const meta: TableMeta = Object.freeze({
    model,
    name: table,
    columns: Object.freeze(columns),
    byField,
    primaryKey: Object.freeze(columns.filter((c) => c.primaryKey)),
    indexes: Object.freeze(indexes),
  });
  declareRelations(meta, relations, byColumn);
  return meta;
}

/** Names reach SQL text as identifiers: refuse here, once per model, what no SQL text may hold. */
function checkName(name: string, what: string): void {
  const problem = textProblem(name, false);
  if (problem) throw new ValidationError(`${what} ${JSON.stringify(name)} ${problem}`);
}

export function columnOf(table: TableMeta, field: string, where: string): ColumnMeta {
  const column = table.byField.get(field);
  if (!column) {
    throw new ValidationError(`${where}: ${table.model.name || table.name} has no field "${field}"`);
  }
  return column;
}
