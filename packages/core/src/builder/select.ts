import type { OrderByItem } from "../ast/statement-node.js";
import { selectNode } from "../ast/statement-node.js";
import type { ModelClass } from "../schema/model.js";
import { tableMeta } from "../schema/table-meta.js";
import type { FieldOf, RowOf, Simplify } from "../types/model-types.js";
import { FRESH } from "./frozen-node.js";
import { rootScope } from "./query-scope.js";
import { resolveFields } from "./resolve-fields.js";
import { SelectBuilder } from "./select-builder.js";
import { withParts } from "./select-parts.js";
import { sourceMeta } from "./source-meta.js";

/**
 * Selects every column of a model, or only the listed fields (rows then carry exactly those fields).
 * With an alias, `select(Order, "o")`, clauses may name `"o.field"` and the query may join.
 */
export function select<M extends ModelClass>(model: M): SelectBuilder<InstanceType<M>, RowOf<InstanceType<M>>>;
// The alias overload's A also admits a field list, so that `select<typeof M, readonly ["id"]>` (an
// instantiation expression, which takes every overload of its arity) still names the fields overload last.
export function select<M extends ModelClass, A extends string | readonly unknown[]>(
  model: M,
  alias: A & string,
): SelectBuilder<InstanceType<M>, RowOf<InstanceType<M>>, { [K in A & string]: { readonly i: InstanceType<M>; readonly n: false } }>;
export function select<M extends ModelClass, const K extends readonly FieldOf<InstanceType<M>>[]>(
  model: M,
  fields: K,
): SelectBuilder<InstanceType<M>, Simplify<Pick<RowOf<InstanceType<M>>, K[number]>>>;
export function select(model: ModelClass, fields?: readonly string[] | string): SelectBuilder<any, any, any> {
  const table = tableMeta(model);
  if (typeof fields === "string") {
    const root = sourceMeta(table, fields, () => `select(${model.name})`);
    const parts = withParts(undefined, "root", root);
    const node = selectNode(table, root.columns, undefined, NO_ORDER, undefined, undefined, undefined, parts);
    return new SelectBuilder(node, FRESH, rootScope(table, root));
  }
  const columns = fields === undefined ? table.columns : resolveFields(table, fields, `select(${model.name})`);
  return new SelectBuilder(selectNode(table, columns, undefined, NO_ORDER, undefined, undefined, undefined, undefined), FRESH);
}

const NO_ORDER: readonly OrderByItem[] = Object.freeze([]);
