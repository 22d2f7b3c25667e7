import { NO_PARTS } from "../ast/query-node.js";
import type { RelationSelectNode } from "../ast/relation-node.js";
import type { OrderByItem } from "../ast/statement-node.js";
import { orderByItem } from "../ast/statement-node.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { CompileContext } from "./compiled-query.js";
import { contextWith } from "./compiled-query.js";
import { ExpressionCompiler } from "./expression-compiler.js";

/** Names the relation statements give their derived tables and extra outputs (see linkOutput). */
export const LINK = "tempest_link";
export const COUNT = "tempest_count";
const ROW_NUMBER = "tempest_rn";
const RELATED = "tempest_rel";
const OWNER = "tempest_owner";
const OWNER_KEY = "tempest_key";

/**
 * The relation layer: one level of a relation load (see RelationSelectNode). The owner keys are one
 * parameter, spelled by the dialect's relationKeysSql; the rest is standard SQL. A limit or offset
 * holds per owner key: a LATERAL join where the dialect has one, ROW_NUMBER() per key elsewhere.
 */
export abstract class RelationCompiler extends ExpressionCompiler {
  /**
   * `column` (SQL text) is one of `keys`, bound as ONE parameter however many there are: PostgreSQL an
   * array (`= ANY($1)`), MySQL/MariaDB a JSON array through JSON_TABLE, SQLite a JSON array through
   * json_each. Each dialect that loads relations spells it; the default refuses.
   */
  protected relationKeysSql(_column: string, _key: ColumnMeta, _keys: readonly unknown[], _ctx: CompileContext): string {
    return this.unsupported(
      "loading relations (the owner keys as one array or JSON parameter)",
      "Load the related rows with a select of your own: where the foreign key is in the keys, then group them in the application.",
    );
  }

  protected relationSelect(node: RelationSelectNode, ctx: CompileContext): string {
    const { relation, select } = node;
    const q = contextWith(ctx, true, undefined);
    const link = this.sourceColumn(relation.link);
    let from = this.quoteName(select.table.name);
    const through = relation.through;
    if (through !== undefined) {
      from += ` INNER JOIN ${this.quoteName(through.table.name)} ON ${this.sourceColumn(through.to)} = ${this.sourceColumn(through.targetKey)}`;
    }
    // Every piece is written in the order it stands in the text: with `?` placeholders, parameters bind by position.
    const filter = () => (select.where === undefined ? "" : ` AND (${this.condition(select.where, q, true)})`);
    const keys = (column: string) => this.relationKeysSql(column, relation.key, node.keys, ctx);
    if (node.count) {
      const where = keys(link) + filter();
      return `SELECT ${link} AS ${this.quoteIdentifier(LINK)}, COUNT(*) AS ${this.quoteIdentifier(COUNT)} FROM ${from} WHERE ${where} GROUP BY ${link}`;
    }
    let columns = "";
    for (let i = 0; i < select.columns.length; i++) columns += (i === 0 ? "" : ", ") + this.sourceColumn(select.columns[i] as ColumnMeta);
    const linkOut = node.linkColumn ? `, ${link} AS ${this.quoteIdentifier(LINK)}` : "";
    const orderBy = withKeyOrder(select.orderBy, select.table.primaryKey);
    const order = () => this.orderItems(orderBy, NO_PARTS, q);
    if (select.limit === undefined && select.offset === undefined) {
      const where = keys(link) + filter();
      return `SELECT ${columns}${linkOut} FROM ${from} WHERE ${where} ORDER BY ${order()}`;
    }
    const outer = this.quoteIdentifier(RELATED);
    let outputs = "";
    for (let i = 0; i < select.columns.length; i++) {
      outputs += `${i === 0 ? "" : ", "}${outer}.${this.quoteName((select.columns[i] as ColumnMeta).name)}`;
    }
    if (node.linkColumn) outputs += `, ${outer}.${this.quoteIdentifier(LINK)}`;
    const rn = this.quoteIdentifier(ROW_NUMBER);
    const offset = select.offset ?? 0;
    if (this.capabilities.lateralJoin) {
      const owner = this.quoteIdentifier(OWNER);
      const ownerKey = `${owner}.${this.quoteIdentifier(OWNER_KEY)}`;
      // Each owner key once (a key need not be unique on its table), then its related rows in order.
      let sql = `SELECT ${outputs} FROM (SELECT DISTINCT ${this.sourceColumn(relation.key)} AS ${this.quoteIdentifier(OWNER_KEY)} FROM ${this.quoteName(relation.owner.name)} WHERE ${keys(this.sourceColumn(relation.key))}) AS ${owner} `;
      sql += `CROSS JOIN LATERAL (SELECT ${columns}${linkOut}, ROW_NUMBER() OVER (ORDER BY ${order()}) AS ${rn} FROM ${from} `;
      sql += `WHERE ${link} = ${ownerKey}${filter()} ORDER BY ${order()}${this.limitOffset(select.limit, select.offset)}) AS ${outer} ORDER BY ${outer}.${rn}`;
      return sql;
    }
    if (!this.capabilities.windowFunctions) {
      this.unsupported(
        "a limit or offset per owner row in a relation load (it needs LATERAL or window functions)",
        "Load the relation without limit() / offset() and keep the first rows of each list in the application.",
      );
    }
    const last = select.limit === undefined ? "" : ` AND ${outer}.${rn} <= ${offset + select.limit}`;
    let sql = `SELECT ${outputs} FROM (SELECT ${columns}${linkOut}, ROW_NUMBER() OVER (PARTITION BY ${link} ORDER BY ${order()}) AS ${rn} `;
    sql += `FROM ${from} WHERE ${keys(link)}${filter()}) AS ${outer} WHERE ${outer}.${rn} > ${offset}${last} ORDER BY ${outer}.${rn}`;
    return sql;
  }
}

/** The related rows' order, then their primary key: ties break the same way on every database. */
function withKeyOrder(items: readonly OrderByItem[], primaryKey: readonly ColumnMeta[]): readonly OrderByItem[] {
  const out = [...items];
  for (const column of primaryKey) {
    if (!items.some((item) => item.column === column)) out.push(orderByItem(column, undefined, "asc", undefined));
  }
  return out;
}
