import type { ConditionNode } from "../ast/condition-node.js";
import { isTypedExpression } from "../ast/is-typed-expression.js";
import type { JoinNode, QueryParts, SelectionNode } from "../ast/query-node.js";
import { NO_PARTS } from "../ast/query-node.js";
import { outerJoinedAliases, readsOuterJoined } from "../ast/row-nesting.js";
import type { LockClause, SelectNode } from "../ast/statement-node.js";
import type { ValueNode } from "../ast/value-node.js";
import { isDerivedColumn } from "../builder/result-columns.js";
import { typedResult } from "../builder/typed-result.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { CompileContext } from "./compiled-query.js";
import { contextWith } from "./compiled-query.js";
import { distinctIsNoOp, projectedKey } from "./distinct-order.js";
import { SchemaChangeCompiler } from "./schema-change-compiler.js";

/**
 * The SELECT layer: plain and composed selects (sources, joins, projections, grouping, ordering,
 * locks) and the clauses the other statements share with them (column lists, WHERE).
 */
export abstract class SelectCompiler extends SchemaChangeCompiler {
  /** Column lists (SELECT, RETURNING, INSERT) per frozen column array. */
  readonly #columnLists = new WeakMap<readonly ColumnMeta[], string>();
  /** Qualified column lists of named sources, per frozen column array. */
  readonly #qualifiedLists = new WeakMap<readonly ColumnMeta[], string>();

  protected select(node: SelectNode, ctx: CompileContext): string {
    if (node.parts !== undefined) return this.composedSelect(node, node.parts, ctx);
    let sql = `SELECT ${this.columnList(node.columns)} FROM ${this.quoteName(node.table.name)}`;
    sql += this.whereClause(node.where, ctx);
    if (node.orderBy.length > 0) {
      sql += " ORDER BY ";
      for (let i = 0; i < node.orderBy.length; i++) {
        const o = node.orderBy[i] as (typeof node.orderBy)[number];
        // A typed expression as the key (a column otherwise, the shape every builder makes).
        const item = o.column === undefined ? this.orderItems([o], NO_PARTS, ctx) : this.orderItem(o.column, o.direction, o.nulls);
        sql += `${i === 0 ? "" : ", "}${item}`;
      }
    }
    sql += this.limitOffset(node.limit, node.offset);
    if (node.lock) sql += ` ${this.lockClause(node.lock)}`;
    return sql;
  }

  /**
   * A select with aliases, joins, a computed projection, DISTINCT, GROUP BY or HAVING. Columns are
   * qualified by their source's alias whenever the query names its sources.
   */
  protected composedSelect(node: SelectNode, parts: QueryParts, ctx: CompileContext): string {
    const qualify = parts.root !== undefined || parts.joins.length > 0;
    const inner = qualify === ctx.qualify ? ctx : contextWith(ctx, qualify, ctx.outputs);
    const distinct = parts.distinct && !distinctIsNoOp(node, parts);
    // DISTINCT sorted by keys the projection does not hold as they are (an enum's declaration order,
    // NULL placement), or paged where the dialect says so: the distinct rows as a derived table,
    // sorted and paged outside (see orderItems).
    const sortOutside = distinct && parts.selections !== undefined && (node.orderBy.length > 0 || this.pagesDistinctOutside(node));
    let sql = distinct ? "SELECT DISTINCT " : "SELECT ";
    sql += parts.selections ? this.selectionList(parts.selections, inner) : this.qualifiedColumnList(node.columns, inner);
    sql += ` FROM ${this.quoteName(node.table.name)}`;
    if (parts.root) sql += ` AS ${this.quoteName(parts.root.alias)}`;
    const joins = parts.joins;
    for (let i = 0; i < joins.length; i++) sql += this.joinClause(joins[i] as JoinNode, inner);
    sql += this.whereClause(node.where, inner);
    if (parts.groupBy.length > 0) sql += ` GROUP BY ${this.groupByList(parts, inner)}`;
    if (parts.having) {
      sql += ` HAVING ${this.condition(parts.having, contextWith(inner, inner.qualify, parts.selections ?? NO_SELECTIONS), true)}`;
    }
    if (sortOutside) sql = `SELECT * FROM (${sql}) AS ${this.quoteIdentifier("tempest_distinct")}`;
    if (node.orderBy.length > 0) sql += ` ORDER BY ${this.orderItems(node.orderBy, parts, inner, sortOutside)}`;
    sql += this.limitOffset(node.limit, node.offset);
    if (node.lock) sql += ` ${this.lockClause(node.lock)}`;
    return sql;
  }

  /**
   * GROUP BY's items. A projection key, or a typed expression the projection selects, is written as
   * its position: the same expression written twice would bind its values twice, and PostgreSQL
   * then sees two different expressions (`$1` and `$3`) and refuses the projection.
   */
  protected groupByList(parts: QueryParts, ctx: CompileContext): string {
    let sql = "";
    const selections = parts.selections ?? NO_SELECTIONS;
    for (let i = 0; i < parts.groupBy.length; i++) {
      const v = parts.groupBy[i] as ValueNode;
      let position = -1;
      if (v.kind === "outputColumn" || isTypedExpression(v)) {
        position = selections.findIndex((s) => s.value === v || (v.kind === "outputColumn" && s.key === v.key));
      }
      sql += (i === 0 ? "" : ", ") + (position >= 0 ? String(position + 1) : this.value(v, ctx));
    }
    return sql;
  }

  /**
   * Whether a DISTINCT select's LIMIT / OFFSET goes on its distinct rows read as a derived table
   * (sorted there too) rather than on the select itself; for a server that pages DISTINCT wrongly.
   */
  protected pagesDistinctOutside(_node: SelectNode): boolean {
    return false;
  }

  /** A typed raw query: its declared columns, by name, in declared order, from the statement as a derived table. */
  protected typedRaw(columns: readonly ColumnMeta[], sql: string): string {
    return `SELECT ${this.columnList(columns)} FROM (${sql}) AS ${this.quoteIdentifier("tempest_typed")}`;
  }

  protected selectionList(selections: readonly SelectionNode[], ctx: CompileContext): string {
    let sql = "";
    for (let i = 0; i < selections.length; i++) {
      const s = selections[i] as SelectionNode;
      // The result column's name is the key (resultColumn), so its quoted form is kept per result column.
      sql += `${i === 0 ? "" : ", "}${this.value(s.value, ctx)} AS ${s.result.name === s.key ? this.outputName(s.result) : this.quoteIdentifier(s.key)}`;
    }
    return sql;
  }

  protected qualifiedColumnList(columns: readonly ColumnMeta[], ctx: CompileContext): string {
    if (!ctx.qualify) return this.columnList(columns);
    let list = this.#qualifiedLists.get(columns);
    if (list === undefined) {
      list = columns.map((c) => this.sourceColumn(c)).join(", ");
      if (Object.isFrozen(columns)) this.#qualifiedLists.set(columns, list);
    }
    return list;
  }

  protected joinClause(join: JoinNode, ctx: CompileContext): string {
    const caps = this.capabilities;
    if (join.join === "right" && !caps.rightJoin) {
      this.unsupported("RIGHT JOIN", "Write it as a LEFT JOIN with the two sources swapped (select from the other model first).");
    }
    if (join.join === "full" && !caps.fullJoin) {
      this.unsupported(
        "FULL JOIN",
        "Run a LEFT JOIN, then the rows of the other side that match nothing (notExists), and combine them in the application.",
      );
    }
    const keyword = JOIN_KEYWORDS[join.join];
    return ` ${keyword} ${this.quoteName(join.source.table.name)} AS ${this.quoteName(join.source.alias)} ON ${this.condition(join.on, ctx, true)}`;
  }

  /**
   * ORDER BY keys: columns, or the projection's keys written as their expressions. A column sorts by
   * the same rule as on a plain select (enum in declaration order, NULL as the largest value) unless
   * NULLS FIRST/LAST is asked; a column of an outer-joined source counts as nullable.
   */
  protected orderItems(items: SelectNode["orderBy"], parts: QueryParts, ctx: CompileContext, byOutputName = false): string {
    let sql = "";
    let outer: ReadonlySet<string> | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i] as SelectNode["orderBy"][number];
      // The column whose sort rules apply: a reference's, or a projection key's. A key naming a
      // source's column sorts as that column; any other key (an aggregate, a scalar subquery) as its
      // result column, so that a NULL max() sorts as the largest value there too.
      // Sorting a DISTINCT's derived table, every key is a projection key, written by its name.
      let column = item.column;
      let computed = false;
      let computedValue: ValueNode | undefined;
      let key: string;
      // A typed key is written where KEY_TOKEN stands, compiled afresh each time: the NULL-placement
      // rules may write a key more than once (`k IS NULL, k`), and each copy binds its own values.
      let repeated: ValueNode | undefined;
      if (column && byOutputName) key = this.quoteIdentifier(projectedKey(parts, column));
      else if (column) key = this.column(column, ctx);
      else {
        const v = item.value as ValueNode;
        const output = v.kind === "outputColumn" ? outputOf(parts.selections, v.key) : undefined;
        const written = output ? output.value : v;
        column = written.kind === "sourceColumn" ? written.column : (output?.result ?? typedKeyColumn(written));
        computed = written.kind !== "sourceColumn";
        if (computed) computedValue = written;
        // A typed expression the projection selects sorts by its key, for the reason groupByList gives.
        const selected = isTypedExpression(written) ? parts.selections?.find((s) => s.value === written) : undefined;
        if ((byOutputName && output) || selected) key = this.quoteIdentifier((output ?? selected)?.key as string);
        else if (isTypedExpression(written)) {
          key = KEY_TOKEN;
          repeated = written;
        } else key = this.value(written, ctx);
      }
      let itemSql: string;
      if (column === undefined) itemSql = this.orderKey(key, item.direction, item.nulls);
      else {
        // A computed enum (an aggregate's, a subquery's) is text on every database, even where the column's type sorts itself.
        const sorted = column.kind === "enum" ? this.enumKey(column, key, computed) : key;
        outer ??= outerJoinedAliases(parts);
        // A source's column carries the source's alias as its table.
        // A computed key over an outer-joined source's column is NULL where the join found no row.
        const nullable =
          (!column.notNull && !column.primaryKey) ||
          outer.has(column.table) ||
          (computedValue !== undefined && readsOuterJoined(computedValue, outer));
        if (item.nulls !== undefined) itemSql = this.orderKey(sorted, item.direction, item.nulls);
        else itemSql = nullable ? this.nullsLargestSql(sorted, item.direction) : `${sorted} ${item.direction === "asc" ? "ASC" : "DESC"}`;
      }
      if (repeated !== undefined) {
        const pieces = itemSql.split(KEY_TOKEN);
        itemSql = pieces[0] as string;
        for (let p = 1; p < pieces.length; p++) itemSql += this.value(repeated, ctx) + pieces[p];
      }
      sql += (i === 0 ? "" : ", ") + itemSql;
    }
    return sql;
  }

  /** One sort key. Without NULLS FIRST/LAST in the dialect, an `IS NULL` key before it puts the NULLs where asked. */
  protected orderKey(key: string, direction: "asc" | "desc", nulls: "first" | "last" | undefined): string {
    const sorted = `${key} ${direction === "asc" ? "ASC" : "DESC"}`;
    if (nulls === undefined) return sorted;
    if (this.capabilities.nullsOrder) return `${sorted} NULLS ${nulls === "first" ? "FIRST" : "LAST"}`;
    return `(${key} IS NULL) ${nulls === "first" ? "DESC" : "ASC"}, ${sorted}`;
  }

  protected columnList(columns: readonly ColumnMeta[]): string {
    let list = this.#columnLists.get(columns);
    if (list === undefined) {
      list = columns.map((c) => this.quoteName(c.name)).join(", ");
      if (Object.isFrozen(columns)) this.#columnLists.set(columns, list);
    }
    return list;
  }

  protected whereClause(where: ConditionNode | undefined, ctx: CompileContext): string {
    return where ? ` WHERE ${this.condition(where, ctx, true)}` : "";
  }

  /**
   * One ORDER BY item. Every dialect sorts the same way (docs/dialects.md, "One statement, one answer"):
   * an enum by its declaration order, and NULL after every value ascending (before them descending).
   * The pinning SQL is written only for columns that need it: a NOT NULL, non-enum column stays a bare
   * column, so an index on it still serves the order.
   */
  protected orderItem(column: ColumnMeta, direction: "asc" | "desc", nulls?: "first" | "last"): string {
    const name = this.quoteName(column.name);
    const sorted = column.kind === "enum" ? this.enumKey(column, name) : name;
    // Asked for explicitly: NULLS FIRST / LAST (or its IS NULL spelling), never dropped.
    if (nulls !== undefined) return this.orderKey(sorted, direction, nulls);
    const nullable = !column.notNull && !column.primaryKey;
    return nullable ? this.nullsLargestSql(sorted, direction) : `${sorted} ${direction === "asc" ? "ASC" : "DESC"}`;
  }

  /** An enum sort key (see enumOrderSql); a CTE's or a set operation's output counts as computed. */
  protected enumKey(column: ColumnMeta, name: string, computed = false): string {
    return this.enumOrderSql(column, name, computed || isDerivedColumn(column));
  }

  /**
   * An enum as a sort key in declaration order. A dialect whose enum type already sorts so returns
   * `name` for a column, but not for a `computed` value (an aggregate's result is plain text).
   */
  protected enumOrderSql(column: ColumnMeta, name: string, _computed = false): string {
    const values = column.enumValues ?? [];
    let sql = `CASE ${name}`;
    for (let i = 0; i < values.length; i++) sql += ` WHEN ${this.literal(values[i], undefined)} THEN ${i}`;
    return `${sql} END`;
  }

  /** `key` ordered with NULL as the largest value: PostgreSQL's own default, standard `NULLS LAST`/`NULLS FIRST` elsewhere. */
  protected nullsLargestSql(key: string, direction: "asc" | "desc"): string {
    return direction === "asc" ? `${key} ASC NULLS LAST` : `${key} DESC NULLS FIRST`;
  }

  protected limitOffset(limit: number | undefined, offset: number | undefined): string {
    return (limit === undefined ? "" : ` LIMIT ${limit}`) + (offset === undefined ? "" : ` OFFSET ${offset}`);
  }

  protected lockClause(lock: LockClause): string {
    const caps = this.capabilities;
    const txHint = "Claim inside transaction() instead: on this dialect the write transaction is exclusive.";
    if (lock.strength === "update" && !caps.rowLocks) this.unsupported("row locks (forUpdate)", txHint);
    if (lock.strength === "share" && !caps.shareLocks) this.unsupported("shared row locks (forShare)", txHint);
    if (lock.wait === "skipLocked" && !caps.skipLocked)
      this.unsupported("SKIP LOCKED", "Upgrade the server (MySQL 8, MariaDB 10.6+) or claim one row at a time.");
    if (lock.wait === "noWait" && !caps.noWait) this.unsupported("NOWAIT", "Upgrade the server or use a lock timeout.");
    if (lock.of.length > 0 && !caps.lockOf)
      this.unsupported("FOR UPDATE OF", "Drop { of }: on a single-table query every selected row is locked anyway.");
    let sql = this.lockStrengthSql(lock.strength);
    if (lock.of.length > 0) sql += ` OF ${lock.of.map((t) => this.quoteName(t)).join(", ")}`;
    if (lock.wait === "skipLocked") sql += " SKIP LOCKED";
    if (lock.wait === "noWait") sql += " NOWAIT";
    return sql;
  }

  protected lockStrengthSql(strength: LockClause["strength"]): string {
    return strength === "update" ? "FOR UPDATE" : "FOR SHARE";
  }
}

/** The selection projected as `key` (a loop: no closure per ORDER BY item). */
function outputOf(selections: readonly SelectionNode[] | undefined, key: string): SelectionNode | undefined {
  if (selections === undefined) return undefined;
  for (let i = 0; i < selections.length; i++) if ((selections[i] as SelectionNode).key === key) return selections[i];
  return undefined;
}

const NO_SELECTIONS: readonly SelectionNode[] = Object.freeze([]);

const JOIN_KEYWORDS: Readonly<Record<JoinNode["join"], string>> = {
  inner: "INNER JOIN",
  left: "LEFT JOIN",
  right: "RIGHT JOIN",
  full: "FULL JOIN",
};

/** Stands for a typed sort key while its NULL-placement rules are written (NUL never occurs in SQL text). */
export const KEY_TOKEN = "\u0000key\u0000";

/** A typed expression as a sort key: its kind and nullability, so NULL sorts as the largest value there too. */
function typedKeyColumn(node: ValueNode): ColumnMeta | undefined {
  return isTypedExpression(node) ? typedResult(node.type, "") : undefined;
}
