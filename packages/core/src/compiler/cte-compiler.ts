import type { CompoundNode } from "../ast/compound-node.js";
import type { CteBody, CteNode } from "../ast/cte-node.js";
import { ctesOf, isDataModifying } from "../ast/cte-node.js";
import type { SelectNode, StatementNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { CompileContext } from "./compiled-query.js";
import { CompoundCompiler } from "./compound-compiler.js";

/**
 * The WITH layer: a select or set operation that reads a CTE (its root or a join names one) is
 * written after `WITH [RECURSIVE] name AS (...)`, each CTE after the ones its body reads, each once.
 * A subquery that reads a CTE the statement already declares does not declare it again.
 */
export abstract class CteCompiler extends CompoundCompiler {
  /** A data-modifying CTE's body (written by the statement layer). */
  protected abstract statement(node: StatementNode, ctx: CompileContext): string;

  protected override select(node: SelectNode, ctx: CompileContext): string {
    if (node.table.cte === undefined && !node.parts?.joins.some((j) => j.source.table.cte !== undefined)) return super.select(node, ctx);
    return this.withClause(node, ctx, (inner) => super.select(node, inner));
  }

  protected override compound(node: CompoundNode, ctx: CompileContext): string {
    return this.withClause(node, ctx, (inner) => super.compound(node, inner));
  }

  protected override subquery(select: SelectNode, ctx: CompileContext): string {
    return super.subquery(select, ctx.nested ? ctx : { ...ctx, nested: true });
  }

  protected withClause(node: SelectNode | CompoundNode, ctx: CompileContext, body: (ctx: CompileContext) => string): string {
    const declared = ctx.ctes;
    const ctes = ctesOf(node).filter((c) => !declared?.has(c));
    if (ctes.length === 0) return body(ctx);
    const caps = this.capabilities;
    if (!caps.ctes) this.unsupported("common table expressions (WITH)", "Upgrade to MySQL 8.0, or inline the CTE's select as a subquery.");
    const names = new Map<string, CteNode>();
    for (const cte of [...(declared ?? []), ...ctes]) {
      const other = names.get(cte.name);
      if (other !== undefined && other !== cte)
        throw new ValidationError(`Two different CTEs are named "${cte.name}" in one statement; give each its own name`);
      names.set(cte.name, cte);
    }
    const inner: CompileContext = { ...ctx, ctes: new Set([...(declared ?? []), ...ctes]) };
    let sql = "WITH ";
    if (ctes.some((c) => c.recursive)) {
      if (!caps.recursiveCtes)
        this.unsupported("WITH RECURSIVE", "Upgrade the server (MySQL 8.0, MariaDB 10.2), or walk the levels with one select per level.");
      sql += "RECURSIVE ";
    }
    for (let i = 0; i < ctes.length; i++) {
      const cte = ctes[i] as CteNode;
      sql += `${i === 0 ? "" : ", "}${this.quoteName(cte.name)} AS ${this.materializedSql(cte)}(${this.cteBody(cte, inner)})`;
    }
    return `${sql} ${body(inner)}`;
  }

  protected materializedSql(cte: CteNode): string {
    if (cte.materialized === undefined) return "";
    if (!this.capabilities.cteMaterialized)
      this.unsupported(
        `${cte.materialized ? "MATERIALIZED" : "NOT MATERIALIZED"} on a CTE`,
        "Drop { materialized }: the server chooses whether to compute the CTE once; the rows are the same.",
      );
    return cte.materialized ? "MATERIALIZED " : "NOT MATERIALIZED ";
  }

  protected cteBody(cte: CteNode, ctx: CompileContext): string {
    const body: CteBody = cte.body;
    const plain = this.unqualified(ctx);
    if (body.kind === "select" || body.kind === "compound") return this.selectOrCompound(body, plain);
    if (!this.capabilities.dataModifyingCtes)
      this.unsupported(
        `a data-modifying CTE (${body.kind.toUpperCase()} in WITH)`,
        `Run the ${body.kind} with .returning(...) inside transaction(), then select with its rows' ids.`,
      );
    if (ctx.nested)
      throw new ValidationError(
        `The data-modifying CTE "${cte.name}" is read inside a subquery; the statement itself must read it (select from it or join it), so that its WITH is at the top`,
      );
    if (isDataModifying(cte)) return this.statement(body, { ...plain, table: body.table });
    return this.statement(body, plain);
  }
}
