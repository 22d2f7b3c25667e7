import type { ColumnMeta } from "../schema/column-meta.js";
import type { TableMeta } from "../schema/table-meta.js";
import type { CompoundNode } from "./compound-node.js";
import type { DeleteNode, InsertNode, SelectNode, UpdateNode } from "./statement-node.js";

/** What a common table expression is made of: a query, or (data-modifying) a write with RETURNING. */
export type CteBody = SelectNode | CompoundNode | InsertNode | UpdateNode | DeleteNode;

/**
 * One `name AS (body)` of a WITH clause. The statement that reads it (its root or a join names the
 * CTE's table) gets the WITH clause when it is compiled; `columns` are the body's outputs under the
 * CTE's name, each read and decoded like the column it came from.
 */
export interface CteNode {
  readonly kind: "cte";
  readonly name: string;
  readonly body: CteBody;
  readonly columns: readonly ColumnMeta[];
  /** The body reads the CTE itself (WITH RECURSIVE). */
  readonly recursive: boolean;
  /** MATERIALIZED (true) / NOT MATERIALIZED (false); undefined: the planner decides. */
  readonly materialized: boolean | undefined;
}

export function cteNode(
  name: string,
  body: CteBody,
  columns: readonly ColumnMeta[],
  recursive: boolean,
  materialized: boolean | undefined,
): CteNode {
  return Object.freeze({ kind: "cte", name, body: Object.freeze(body), columns: Object.freeze(columns), recursive, materialized });
}

/** True for a CTE whose body writes (INSERT / UPDATE / DELETE ... RETURNING). */
export function isDataModifying(cte: CteNode): boolean {
  return cte.body.kind !== "select" && cte.body.kind !== "compound";
}

/**
 * The CTEs a statement reads, each after the CTEs its own body reads, each once: the order a WITH
 * clause lists them in. A recursive CTE's reference to itself is a plain table (no `cte`) and ends
 * the walk. Subqueries in conditions are not walked: they declare what they read themselves.
 */
export function ctesOf(node: CteBody): CteNode[] {
  const out: CteNode[] = [];
  const visit = (table: TableMeta): void => {
    const cte = table.cte;
    if (cte === undefined || out.includes(cte)) return;
    walk(cte.body);
    if (!out.includes(cte)) out.push(cte);
  };
  const walk = (body: CteBody): void => {
    switch (body.kind) {
      case "select":
        visit(body.table);
        for (const join of body.parts?.joins ?? []) visit(join.source.table);
        return;
      case "compound":
        walk(body.left);
        walk(body.right);
        return;
      case "insert":
      case "update":
      case "delete":
        return;
      default:
        unknownBody(body);
    }
  };
  walk(node);
  return out;
}

function unknownBody(node: never): never {
  throw new Error(`ctesOf: unknown node ${(node as { kind: string }).kind}`);
}
