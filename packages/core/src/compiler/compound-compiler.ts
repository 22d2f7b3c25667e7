import type { CompoundNode, SetOperand, SetOperator } from "../ast/compound-node.js";
import type { SelectNode } from "../ast/statement-node.js";
import { SET_ALIAS } from "../builder/compound-builder.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { CompileContext } from "./compiled-query.js";
import { exhaustive } from "./compiler-base.js";
import { SelectCompiler } from "./select-compiler.js";

/** A part with its own LIMIT, read from a derived table where the dialect has no parenthesized parts. */
const PART_ALIAS = "tempest_part";

/**
 * The set-operation layer: UNION / INTERSECT / EXCEPT [ALL]. Parts are grouped as they were built,
 * left to right, on every database: where an operator's precedence (INTERSECT binds tighter on
 * PostgreSQL and MariaDB) or the dialect's grammar would regroup or refuse a part, the part is read
 * from a derived table, which keeps its meaning. An ORDER BY of the result is written over the
 * result as a derived table too, so it may sort by the same expressions as a select (enum order,
 * NULL placement) where the grammar would allow only output names.
 */
export abstract class CompoundCompiler extends SelectCompiler {
  protected compound(node: CompoundNode, ctx: CompileContext): string {
    this.checkSetOperator(node.op, node.all);
    const keyword = `${setKeyword(node.op)}${node.all ? " ALL" : ""}`;
    const sql = `${this.setOperand(node.left, node, "left", ctx)} ${keyword} ${this.setOperand(node.right, node, "right", ctx)}`;
    if (node.orderBy.length === 0) return sql + this.limitOffset(node.limit, node.offset);
    let ordered = `SELECT ${this.columnList(node.columns)} FROM (${sql}) AS ${this.quoteIdentifier(SET_ALIAS)} ORDER BY `;
    for (let i = 0; i < node.orderBy.length; i++) {
      const item = node.orderBy[i] as (typeof node.orderBy)[number];
      const column = item.column as ColumnMeta;
      ordered += (i === 0 ? "" : ", ") + this.orderItem(column, item.direction, item.nulls);
    }
    return ordered + this.limitOffset(node.limit, node.offset);
  }

  protected checkSetOperator(op: SetOperator, all: boolean): void {
    const caps = this.capabilities;
    if (op !== "union" && !caps.intersectExcept)
      this.unsupported(
        `${setKeyword(op)}`,
        "Upgrade to MySQL 8.0.31+, or write it as a join (intersect) or a notExists subquery (except).",
      );
    if (op === "intersect" && all && !caps.intersectAll)
      this.unsupported(
        "INTERSECT ALL",
        "Use intersect() for the distinct rows both parts return, or count each row per part with groupBy and join the counts.",
      );
    if (op === "except" && all && !caps.exceptAll)
      this.unsupported(
        "EXCEPT ALL",
        "Use except() for the distinct rows, or count each row per part with groupBy and subtract the counts.",
      );
  }

  /** One side of `parent`, grouped as built (see the class comment). */
  protected setOperand(operand: SetOperand, parent: CompoundNode, side: "left" | "right", ctx: CompileContext): string {
    if (operand.kind === "select") {
      if (operand.limit === undefined && operand.offset === undefined) return this.select(operand, ctx);
      if (this.capabilities.parenthesizedSetParts) return `(${this.select(operand, ctx)})`;
      return this.derived(operand.columns, this.select(operand, ctx), PART_ALIAS);
    }
    const regrouped =
      side === "right" || (parent.op === "intersect" && operand.op !== "intersect") || !this.chainsSetOperators(operand, parent);
    const clauses = operand.orderBy.length > 0 || operand.limit !== undefined || operand.offset !== undefined;
    const sql = this.compound(operand, ctx);
    return regrouped || clauses ? this.derived(operand.columns, sql, SET_ALIAS) : sql;
  }

  /**
   * Whether `next`'s operator may follow `left`'s in one flat chain, `a op1 b op2 c`; where the server
   * misreads such a chain the dialect answers false and `left` is read from a derived table, which
   * keeps the meaning. Every chain by default.
   */
  protected chainsSetOperators(_left: CompoundNode, _next: CompoundNode): boolean {
    return true;
  }

  /** `SELECT columns FROM (sql) AS alias`: a query as a part whatever its own clauses. */
  protected derived(columns: readonly ColumnMeta[], sql: string, alias: string): string {
    return `SELECT ${this.columnList(columns)} FROM (${sql}) AS ${this.quoteIdentifier(alias)}`;
  }

  /** A subquery or CTE body may be a set operation as well. */
  protected selectOrCompound(node: SelectNode | CompoundNode, ctx: CompileContext): string {
    return node.kind === "select" ? this.select(node, ctx) : this.compound(node, ctx);
  }
}

function setKeyword(op: SetOperator): string {
  switch (op) {
    case "union":
      return "UNION";
    case "intersect":
      return "INTERSECT";
    case "except":
      return "EXCEPT";
    default:
      return exhaustive(op);
  }
}
