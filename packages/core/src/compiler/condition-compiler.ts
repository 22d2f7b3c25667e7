import type { ConditionNode, InListNode, InSubqueryNode } from "../ast/condition-node.js";
import type { SelectNode } from "../ast/statement-node.js";
import type { PlaceholderNode } from "../ast/value-node.js";
import type { CompileContext } from "./compiled-query.js";
import { CompilerBase, exhaustive } from "./compiler-base.js";

/** The second layer of the compiler: the where language's conditions. */
export abstract class ConditionCompiler extends CompilerBase {
  protected condition(node: ConditionNode, ctx: CompileContext, top = false): string {
    switch (node.kind) {
      case "compare": {
        const left = this.column(node.column, ctx);
        const right = this.value(node.value, ctx);
        if (node.op === "like") return this.likeSql(left, right);
        return node.op === "ilike" ? this.ilikeSql(left, right) : `${left} ${node.op} ${right}`;
      }
      case "inList":
        return this.inList(node, ctx);
      case "inSubquery":
        return this.inSubquery(node, ctx);
      case "isNull":
        return `${this.column(node.column, ctx)} IS ${node.negated ? "NOT NULL" : "NULL"}`;
      case "between":
        return `${this.column(node.column, ctx)} BETWEEN ${this.value(node.low, ctx)} AND ${this.value(node.high, ctx)}`;
      case "and":
      case "or": {
        const separator = node.kind === "and" ? " AND " : " OR ";
        let joined = "";
        for (let i = 0; i < node.items.length; i++) {
          joined += (i === 0 ? "" : separator) + this.condition(node.items[i] as ConditionNode, ctx);
        }
        return top ? joined : `(${joined})`;
      }
      case "not":
        return `NOT (${this.condition(node.item, ctx, true)})`;
      case "constant":
        return node.value ? "1 = 1" : "1 = 0";
      case "expressionCondition":
        return `(${this.value(node.expression, ctx)})`;
      default:
        return exhaustive(node);
    }
  }

  /** `column IN (values)` (never empty: the builder turns `in: []` into a constant). */
  protected inList(node: InListNode, ctx: CompileContext): string {
    if (this.listPlaceholder(node) !== undefined) {
      this.unsupported(
        "a list placeholder in op.in / op.notIn (the list bound as one array parameter)",
        "Declare one placeholder per value, or build the statement per call with op.in([...]).",
      );
    }
    return `${this.column(node.column, ctx)} ${node.negated ? "NOT IN" : "IN"} (${this.valueList(node.values, ctx)})`;
  }

  /** `like` patterns treat `\\` as the escape character on every dialect (`\\%` matches a literal %). */
  protected likeSql(left: string, right: string): string {
    return `${left} LIKE ${right}`;
  }

  protected ilikeSql(left: string, right: string): string {
    return `${left} ILIKE ${right}`;
  }

  protected inSubquery(node: InSubqueryNode, ctx: CompileContext): string {
    this.checkSubquery(node.subquery.select);
    const inner = this.subquery(node.subquery.select, ctx);
    return `${this.column(node.column, ctx)} ${node.negated ? "NOT IN" : "IN"} (${inner})`;
  }

  protected checkSubquery(select: SelectNode): void {
    if ((select.limit !== undefined || select.offset !== undefined) && !this.capabilities.limitInSubquery) {
      this.unsupported(
        "LIMIT inside an IN (SELECT ...) subquery",
        "Claim in two steps: inside transaction(), select the ids with forUpdate(), then update where { id: { in: ids } }.",
      );
    }
  }

  /** `op.in(p.ids)` in a prepared statement: the one placeholder, declared `"kind[]"`, that stands for the whole list. */
  protected listPlaceholder(node: InListNode): PlaceholderNode | undefined {
    const only = node.values[0];
    return node.values.length === 1 && only?.kind === "placeholder" && only.list ? only : undefined;
  }
}
