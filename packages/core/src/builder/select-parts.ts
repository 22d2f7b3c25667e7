import type { ConditionNode } from "../ast/condition-node.js";
import { compareNode } from "../ast/condition-node.js";
import { expressionNode } from "../ast/expression.js";
import { isTypedExpression } from "../ast/is-typed-expression.js";
import type { JoinKind, QueryParts, SelectionNode, SourceMeta } from "../ast/query-node.js";
import { freshQueryParts, joinNode, NO_PARTS, selectionNode } from "../ast/query-node.js";
import { outerJoinedAliases } from "../ast/row-nesting.js";
import type { SelectNode } from "../ast/statement-node.js";
import type { ValueNode } from "../ast/value-node.js";
import { outputColumnNode, sourceColumnNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { ModelClass } from "../schema/model.js";
import type { TableMeta } from "../schema/table-meta.js";
import { tableMeta } from "../schema/table-meta.js";
import type { QueryScope } from "./query-scope.js";
import { isQualified, joinScope, refColumn } from "./query-scope.js";
import { fieldNames, isPlainRecord } from "./resolve-set.js";
import { resolveWhere } from "./resolve-where.js";
import { aggregateResult, conversionNameOf, internColumns, resultColumn } from "./result-columns.js";
import { sourceMeta } from "./source-meta.js";
import { typedResult } from "./typed-result.js";
import { windowResult } from "./window-helpers.js";
import { checkWindowGrouping, holdsAggregate, refuseWindowsInHaving, refuseWindowsWithLock, refuseWindowValue } from "./window-rules.js";

/** The parts a builder method changes, one per call. */
type PartsKey = Exclude<keyof QueryParts, "kind">;

/**
 * Parts with one field changed, written out field by field as withSelect does (one shape, reads
 * monomorphic). Fresh: frozen with the node that holds them (see freshQueryParts).
 */
export function withParts<K extends PartsKey>(parts: QueryParts | undefined, key: K, value: QueryParts[K]): QueryParts {
  const p = parts ?? NO_PARTS;
  return freshQueryParts(
    key === "root" ? (value as QueryParts["root"]) : p.root,
    key === "joins" ? (value as QueryParts["joins"]) : p.joins,
    key === "selections" ? (value as QueryParts["selections"]) : p.selections,
    key === "distinct" ? (value as QueryParts["distinct"]) : p.distinct,
    key === "groupBy" ? (value as QueryParts["groupBy"]) : p.groupBy,
    key === "having" ? (value as QueryParts["having"]) : p.having,
  );
}

/** The projection of a computed select: its selections' result columns, one shared list per shape. */
export function selectionColumns(selections: readonly SelectionNode[]): readonly ColumnMeta[] {
  const results: ColumnMeta[] = new Array(selections.length);
  for (let i = 0; i < selections.length; i++) results[i] = (selections[i] as SelectionNode).result;
  return internColumns(results, "selections");
}

/** A select with one more source: its parts, and the scope (and so the projection) they have. */
export interface Joined {
  readonly parts: QueryParts;
  readonly scope: QueryScope;
}

/**
 * Adds a join to a select whose scope is `scope`: `on` is two references compared for equality, or
 * a condition of the where language.
 */
export function addJoin(
  node: SelectNode,
  scope: QueryScope | TableMeta,
  join: JoinKind,
  model: ModelClass,
  alias: string,
  on: unknown,
  right: unknown,
): Joined {
  // The call as error messages name it, written only for an error.
  const where = () => `${join}Join(${model?.name ?? "?"}, "${String(alias)}")`;
  const parts = node.parts;
  if (!parts?.root || !("sources" in scope)) {
    throw new ValidationError(
      `${where()}: name the root's alias first, select(${node.table.model.name}, "alias"), so that every column of the join is qualified`,
    );
  }
  const source = sourceMeta(tableMeta(model), alias, where);
  const named = scope.sources;
  for (let i = 0; i < named.length; i++) {
    if ((named[i] as SourceMeta).alias === alias)
      throw new ValidationError(`${where()}: the alias "${alias}" is already used in this query`);
  }
  const joined = joinScope(scope, join, source);
  let condition: ConditionNode;
  if (typeof on === "string") {
    if (typeof right !== "string")
      throw new ValidationError(`${where()}: give two references to compare ("a.field", "b.field"), or a condition`);
    condition = compareNode(refColumn(joined, on, where), "=", sourceColumnNode(refColumn(joined, right, where)));
  } else {
    if (right !== undefined) throw new ValidationError(`${where()}: a condition is the only argument after the alias`);
    condition = resolveWhere(joined, on, () => `${where()} on`);
  }
  const joins = [...parts.joins, joinNode(join, source, condition)];
  return { parts: withParts(parts, "joins", joins), scope: joined };
}

/** A projection object into selections: each key a reference or an expression. */
export function resolveSelections(scope: QueryScope | SelectNode["table"], spec: unknown, where: string): SelectionNode[] {
  if (!isPlainRecord(spec))
    throw new ValidationError(`${where}: expects an object of { key: "field" | expression }, got ${describe(spec)}`);
  const keys = fieldNames(spec, where);
  if (keys.length === 0) throw new ValidationError(`${where}: the projection is empty`);
  return keys.map((key) => {
    const entry = spec[key];
    const at = `${where} "${key}"`;
    if (typeof entry === "string") {
      const column = refColumn(scope, entry, at);
      return selectionNode(key, sourceColumnNode(column), resultColumn(column, key, column.kind, false, conversionNameOf(column)));
    }
    const node = expressionNode(entry);
    if (!node) throw new ValidationError(`${at}: expects "field", "alias.field" or an expression, got ${describe(entry)}`);
    switch (node.kind) {
      case "aggregate":
        return selectionNode(key, node, aggregateResult(node.fn, node.column, key, at));
      case "sourceColumn":
        return selectionNode(key, node, resultColumn(node.column, key, node.column.kind, false, conversionNameOf(node.column)));
      case "window":
        return selectionNode(key, node, windowResult(node, key, at));
      case "scalarSubquery": {
        const inner = node.select.columns[0] as ColumnMeta;
        return selectionNode(key, node, resultColumn(inner, key, inner.kind, false, conversionNameOf(inner)));
      }
      default:
        if (isTypedExpression(node)) {
          refuseWindowValue(node, at);
          return selectionNode(key, node, typedResult(node.type, key));
        }
        throw new ValidationError(
          `${at}: a ${node.kind} expression has no declared type; select a field, an aggregate (q.count(), q.sum(...)) or scalar(subquery), or use a typed raw query`,
        );
    }
  });
}

/** GROUP BY references as source columns, and typed expressions as they are. */
export function resolveGroupBy(
  scope: QueryScope | SelectNode["table"],
  refs: readonly unknown[],
  selections: readonly SelectionNode[] | undefined,
): ValueNode[] {
  if (refs.length === 0) throw new ValidationError("groupBy: name at least one field");
  return refs.map((ref) => {
    const node = expressionNode(ref);
    if (node === undefined) {
      // A key of the projection that is a typed expression: grouped by its position (see groupByList).
      const selected = typeof ref === "string" && !scope.byField.has(ref) ? selections?.find((s) => s.key === ref) : undefined;
      if (selected !== undefined && isTypedExpression(selected.value) && !holdsAggregate(selected.value))
        return outputColumnNode(ref as string);
      return sourceColumnNode(refColumn(scope, ref, "groupBy"));
    }
    if (!isTypedExpression(node) || holdsAggregate(node)) {
      throw new ValidationError("groupBy: takes fields and typed expressions (fn.*, q.*) without aggregates");
    }
    return node;
  });
}

/**
 * HAVING over the projection's keys: `{ total: { gt: 100 } }`. Each key is a result column, which the
 * compiler writes as the selection's expression.
 */
export function resolveHaving(node: SelectNode, input: unknown): ConditionNode {
  const selections = node.parts?.selections;
  if (!selections) throw new ValidationError("having: call .columns({...}) first; having filters on the projection's keys");
  const having = resolveWhere(
    { model: node.table.model, name: node.table.name, byField: new SelectionFields(selections) },
    input,
    "having",
  );
  refuseWindowsInHaving(having, selections);
  return having;
}

/** The projection's keys as the fields HAVING names, looked up among a few selections without a Map per call. */
class SelectionFields {
  readonly #selections: readonly SelectionNode[];

  constructor(selections: readonly SelectionNode[]) {
    this.#selections = selections;
  }

  get(key: string): ColumnMeta | undefined {
    for (const s of this.#selections) if (s.key === key) return s.result;
    return undefined;
  }
}

/**
 * True when any selection is or holds an aggregate (in its expressions, not in its subqueries, which
 * aggregate their own rows, nor as the function of a window, which keeps the rows).
 */
export function aggregates(parts: QueryParts | undefined): boolean {
  for (const selection of parts?.selections ?? []) if (holdsAggregate(selection.value)) return true;
  return false;
}

/** The rules a select's parts must keep together, checked on every change: windows over groups, locks. */
export function checkSelect(node: SelectNode): void {
  if (node.parts) checkWindowGrouping(node.parts);
  checkLock(node);
}

/**
 * PostgreSQL refuses FOR UPDATE / FOR SHARE with GROUP BY, DISTINCT and aggregates, and on the
 * nullable side of an outer join; MySQL would lock differently or not at all. Refused on every
 * dialect, when the statement is built, naming the construct.
 */
export function checkLock(node: SelectNode): void {
  const lock = node.lock;
  const parts = node.parts;
  if (!lock) return;
  const what = lock.strength === "update" ? "forUpdate()" : "forShare()";
  if (!parts) {
    if (node.table.cte)
      throw new ValidationError(
        `${what} cannot lock the rows of the CTE "${node.table.name}": they are computed, not stored. Lock the table's rows in the CTE's own select.`,
      );
    return;
  }
  if (parts.groupBy.length > 0)
    throw new ValidationError(
      `${what} cannot lock the rows of a GROUP BY: a group is not a row. Lock the rows in a select without groupBy, then aggregate.`,
    );
  if (parts.distinct)
    throw new ValidationError(`${what} cannot lock the rows of a DISTINCT select. Drop distinct() or lock in a separate select.`);
  if (aggregates(parts))
    throw new ValidationError(
      `${what} cannot lock the rows behind an aggregate. Lock the rows in a select without aggregates, then count.`,
    );
  refuseWindowsWithLock(parts, what);
  const nullable = outerJoinedAliases(parts);
  const locked = lock.of.length > 0 ? lock.of : [parts.root?.alias, ...parts.joins.map((j) => j.source.alias)];
  const computed = [parts.root, ...parts.joins.map((j) => j.source)].find((s) => s?.table.cte && locked.includes(s.alias));
  if (computed)
    throw new ValidationError(
      `${what} cannot lock "${computed.alias}", the CTE "${computed.table.name}": its rows are computed, not stored. Restrict the lock to the tables with { of: [...] }.`,
    );
  const bad = locked.find((alias) => alias !== undefined && nullable.has(alias));
  if (bad !== undefined) {
    throw new ValidationError(
      `${what} cannot lock "${bad}", on the nullable side of an outer join. Restrict the lock to the other sources with { of: [...] }.`,
    );
  }
}

export { isQualified };
