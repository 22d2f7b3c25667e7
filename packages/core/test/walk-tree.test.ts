import { describe, expect, test } from "vitest";
import type { StatementNode } from "../src/ast/statement-node.js";
import type { TreeNode, TreeNodeKind } from "../src/ast/walk-tree.js";
import { forEachChild, MAX_TREE_DEPTH, walkTree } from "../src/ast/walk-tree.js";
import { cte, exists, insert, not, op, or, scalar, select, sql, update, ValidationError } from "../src/index.js";
import { ConformanceCustomer as Customer, ConformanceOrder as Order } from "../src/testing/index.js";

/**
 * Every kind of TreeNode, checked by the compiler: a kind added to the union without being listed here
 * (and walked by forEachChild) fails the typecheck of this file.
 */
const KINDS: Record<TreeNodeKind, true> = {
  select: true,
  compound: true,
  insert: true,
  update: true,
  delete: true,
  rawStatement: true,
  createTable: true,
  createIndex: true,
  dropTable: true,
  addColumn: true,
  describeTable: true,
  relationSelect: true,
  subquery: true,
  cte: true,
  queryParts: true,
  join: true,
  selection: true,
  lock: true,
  onConflict: true,
  onDuplicateKey: true,
  ignoreDuplicates: true,
  compare: true,
  inList: true,
  inSubquery: true,
  isNull: true,
  between: true,
  and: true,
  or: true,
  not: true,
  constant: true,
  expressionCondition: true,
  param: true,
  raw: true,
  template: true,
  now: true,
  excluded: true,
  columnRef: true,
  sourceColumn: true,
  aggregate: true,
  scalarSubquery: true,
  exists: true,
  outputColumn: true,
  placeholder: true,
  window: true,
  ranking: true,
  offsetFunction: true,
  windowSpec: true,
  windowKey: true,
  windowFrame: true,
  frameBound: true,
  arithmetic: true,
  negate: true,
  functionCall: true,
  case: true,
  cast: true,
  comparison: true,
  aggregateOf: true,
  datetimeTrunc: true,
  datetimeField: true,
  datetimeShift: true,
  datetimeDiff: true,
  literal: true,
};

const node = (q: { toNode(): StatementNode }) => q.toNode();

function kindsIn(root: TreeNode): Set<string> {
  const kinds = new Set<string>();
  walkTree(root, (n) => void kinds.add(n.kind));
  return kinds;
}

/** Walks `root`, collecting every select's where reached, by the table it is on. */
function wheresIn(root: TreeNode): string[] {
  const tables: string[] = [];
  walkTree(root, (n) => {
    if ((n.kind === "select" || n.kind === "update") && n.where !== undefined) tables.push(n.table.name);
    return true;
  });
  return tables;
}

describe("walkTree: one traversal over every node kind", () => {
  test("reaches every where a subquery or expression can hold", () => {
    const inner = () => select(Customer, ["id"]).where({ name: op.ne("x") });
    const lowest = () => scalar(select(Customer, ["id"]).where({ name: "y" }).limit(1));
    const picked = cte("picked", select(Customer, ["id", "name"]).where({ id: 1 }));
    const q = select(Order, "o")
      .innerJoin(picked, "p", sql.expr`${exists(inner())}`)
      .columns((h) => ({ id: "o.id", s: lowest(), n: h.rowNumber().over({ partitionBy: ["o.status"], orderBy: ["o.id"] }) }))
      .where(
        or(
          { total: op.between(lowest(), 10) },
          { total: op.in([lowest() as never]) },
          not(sql.expr`${sql.expr`${exists(inner())}`}`),
          sql.nowPlusSeconds(1) as never,
        ),
      );
    // Order's own where, the CTE's, and each subquery's (two exists, three scalars in where and projection).
    expect(wheresIn(node(q)).sort()).toEqual(["tempest_conformance_orders", ...Array(6).fill("tempest_conformance_customers")].sort());
    const kinds = kindsIn(node(q));
    for (const kind of [
      "cte",
      "join",
      "selection",
      "window",
      "windowSpec",
      "windowKey",
      "template",
      "exists",
      "scalarSubquery",
      "between",
      "inList",
      "not",
      "or",
      "now",
    ])
      expect(kinds).toContain(kind);
  });

  test("SET values and an upsert's set are children of the write", () => {
    const sub = () => scalar(select(Customer, ["id"]).where({ name: "z" }));
    expect(
      wheresIn(
        node(
          update(Order)
            .set({ total: sub() as never })
            .where({ id: 1 }),
        ),
      ),
    ).toHaveLength(2);
    const upsert = insert(Customer)
      .values({ id: 1, name: "a", createdAt: new Date(0) })
      .onConflictDoUpdate(["id"], { referredBy: sub() as never });
    expect(kindsIn(node(upsert))).toContain("scalarSubquery");
    expect(wheresIn(node(upsert))).toEqual(["tempest_conformance_customers"]);
  });

  test("every kind listed is one forEachChild answers for", () => {
    expect(Object.keys(KINDS).length).toBe(62);
    // An unknown kind (a node from another copy of the package, or a forged one) is refused, not skipped.
    expect(() => forEachChild({ kind: "mystery" } as never, () => {}, undefined)).toThrow(ValidationError);
  });

  test(`deeper than ${MAX_TREE_DEPTH} levels: a ValidationError that states the limit`, () => {
    let deep: TreeNode = { kind: "constant", value: true };
    for (let i = 0; i < MAX_TREE_DEPTH; i++) deep = { kind: "not", item: deep as never };
    expect(() => walkTree(deep, () => true)).not.toThrow();
    deep = { kind: "not", item: deep as never };
    expect(() => walkTree(deep, () => true)).toThrow(new RegExp(`deeper than ${MAX_TREE_DEPTH} levels of nodes`));
  });
});
