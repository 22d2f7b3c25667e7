import type { CompoundNode } from "../ast/compound-node.js";
import type { CteBody, CteNode } from "../ast/cte-node.js";
import { cteNode } from "../ast/cte-node.js";
import { nestingOf } from "../ast/row-nesting.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import { registerTableMeta } from "../schema/table-meta.js";
import type { CteSource } from "../types/set-types.js";
import { setOperation } from "./compound-builder.js";
import type { Executable } from "./executable.js";
import { isExecutable } from "./executable.js";
import { derivedColumn } from "./result-columns.js";
import { checkAlias } from "./source-meta.js";

export interface CteOptions {
  /**
   * `true`: MATERIALIZED (compute once), `false`: NOT MATERIALIZED (inline into the query);
   * unset: the planner decides. PostgreSQL 12+ and SQLite 3.35+; refused by name elsewhere.
   */
  readonly materialized?: boolean;
}

export interface RecursiveCteOptions extends CteOptions {
  /** `"all"` (default): UNION ALL of the steps; `"distinct"`: UNION, which also stops at a cycle. */
  readonly union?: "all" | "distinct";
}

/**
 * A common table expression named `name` over a select, a set operation, or (PostgreSQL) an
 * insert / update / delete with `.returning(...)`. Read it like a model — `select(recent, "r")`,
 * `.innerJoin(recent, "r", "r.customerId", "c.id")`, `ref(recent, "r", "total")` — and the
 * statement gets `WITH name AS (...)` when it is compiled.
 */
export function cte<R, const N extends string>(name: N, query: Executable<R>, options?: CteOptions): CteSource<R, N> {
  const where = `cte("${String(name)}")`;
  checkAlias(name, where);
  const body = bodyOf(query, where);
  return source(cteNode(name, body, columnsOf(body, where), false, materializedOf(options, where))) as unknown as CteSource<R, N>;
}

/**
 * A recursive CTE: `anchor`, then `step(self)` joined to the rows found so far, until a step finds
 * none: `WITH RECURSIVE name AS (anchor UNION ALL step)`. `self` is the CTE as the step reads it.
 */
export function cteRecursive<R, const N extends string>(
  name: N,
  anchor: Executable<R>,
  step: (self: CteSource<R, N>) => Executable<R>,
  options?: RecursiveCteOptions,
): CteSource<R, N> {
  const where = `cteRecursive("${String(name)}")`;
  checkAlias(name, where);
  const union = options?.union ?? "all";
  if (union !== "all" && union !== "distinct") throw new ValidationError(`${where}: union is "all" or "distinct"`);
  const first = bodyOf(anchor, `${where} anchor`);
  if (first.kind !== "select" && first.kind !== "compound") throw new ValidationError(`${where}: the anchor is a select`);
  const self = tableSource(
    name,
    columnsOf(first, where).map((c) => derivedColumn(c, name, c.notNull)),
    undefined,
  );
  if (typeof step !== "function") throw new ValidationError(`${where}: the step is a function of the CTE itself, (self) => select(...)`);
  const body: CompoundNode = setOperation(first, "union", union === "all", step(self as CteSource<R, N>));
  return source(cteNode(name, body, body.columns, true, materializedOf(options, where))) as unknown as CteSource<R, N>;
}

function bodyOf(query: unknown, where: string): CteBody {
  const node = isExecutable(query) ? query.toNode() : undefined;
  switch (node?.kind) {
    case "select":
    case "compound":
    case "insert":
    case "update":
    case "delete":
      return node;
    default:
      throw new ValidationError(
        `${where} takes a select, a set operation, or an insert/update/delete with returning(), got ${node?.kind ?? describe(query)}`,
      );
  }
}

function columnsOf(body: CteBody, where: string): readonly ColumnMeta[] {
  if (body.kind === "select" && nestingOf(body)) throw new ValidationError(`${where}: a joined select is a CTE only with .columns({...})`);
  const columns = body.kind === "select" || body.kind === "compound" ? body.columns : body.returning;
  if (!columns) throw new ValidationError(`${where}: a ${body.kind} is a CTE only with .returning(...), which gives its columns`);
  return columns;
}

function materializedOf(options: CteOptions | undefined, where: string): boolean | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== "object" || options === null) throw new ValidationError(`${where}: options is an object`);
  const value = options.materialized;
  if (value !== undefined && typeof value !== "boolean") throw new ValidationError(`${where}: materialized is true or false`);
  return value;
}

/** The CTE as a source: its outputs under its name, read like a table's columns. */
function source(node: CteNode): CteSource<any, string> {
  return tableSource(
    node.name,
    node.columns.map((c) => derivedColumn(c, node.name, c.notNull)),
    node,
  );
}

function tableSource(name: string, columns: readonly ColumnMeta[], node: CteNode | undefined): CteSource<any, string> {
  const model = class {};
  Object.defineProperty(model, "name", { value: name });
  Object.defineProperty(model, "tablename", { value: name, enumerable: true });
  Object.defineProperty(model, "cteName", { value: name, enumerable: true });
  const frozen = Object.freeze(columns);
  const meta: TableMeta = Object.freeze({
    model: model as unknown as TableMeta["model"],
    name,
    columns: frozen,
    byField: new Map(frozen.map((c) => [c.field, c])),
    primaryKey: Object.freeze([]),
    indexes: Object.freeze([]),
    ...(node ? { cte: node } : {}),
  });
  registerTableMeta(model, meta);
  return Object.freeze(model) as unknown as CteSource<any, string>;
}
