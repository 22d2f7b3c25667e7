import type { DialectCapabilities, Executable } from "tempest-db-js";
import { cte, cteRecursive, op, ref, select, sql } from "tempest-db-js";
import { toCondition } from "./query-build.js";
import { FIELDS, MODELS } from "./query-schema.js";
import type { CteSpec, PartSpec, SetSpec, Source } from "./set-spec.js";

// A SetSpec as a statement of the query language (through `any`, as in query-build: the specs are
// data), and the capability flags it needs.

/** Every column of a table, under its own name: a CTE reads like the table it came from. */
const ALL = Object.fromEntries(["id", ...FIELDS].map((f) => [f, `a.${f}`]));

function cteOf(spec: CteSpec, index: number, earlier: readonly unknown[]): unknown {
  const name = `c${index}`;
  const options = spec.materialized === undefined ? undefined : { materialized: spec.materialized };
  const from = (source: Source): any => (typeof source === "number" ? earlier[source] : MODELS[source]);
  let body: any = select(from(spec.from), "a").columns(ALL);
  if (spec.where) body = body.where(toCondition(spec.where));
  if (spec.kind === "plain") {
    if (spec.page) body = body.orderBy("a.id").limit(spec.page.limit);
    if (spec.page?.offset !== undefined) body = body.offset(spec.page.offset);
    return cte(name, body, options);
  }
  const table: any = MODELS[spec.from as "A" | "B"];
  const step = (self: any) =>
    (select(table, "a") as any)
      .innerJoin(self, "r", sql.expr`${ref(table, "a", "id")} = ${ref(self, "r", "id")} + 1`)
      .columns(ALL)
      .where({ "a.id": op.lte(spec.maxId as number) });
  return cteRecursive(name, body, step, { union: spec.union ?? "all", ...options });
}

function partOf(spec: PartSpec, ctes: readonly unknown[]): any {
  const from = (source: Source): any => (typeof source === "number" ? ctes[source] : MODELS[source]);
  let q: any = select(from(spec.from), "a");
  if (spec.join) {
    const joined = from(spec.join.with);
    const on = { [`b.${spec.join.field}`]: ref(from(spec.from), "a", spec.join.field as never) };
    q = spec.join.kind === "inner" ? q.innerJoin(joined, "b", on) : q.leftJoin(joined, "b", on);
  }
  q = q.columns(Object.fromEntries(spec.outputs.map((o, i) => [`v${i}`, `${o.alias}.${o.field}`])));
  if (spec.where) q = q.where(toCondition(spec.where));
  if (spec.page) {
    for (const o of spec.page.order) q = q.orderBy(`${o.alias}.${o.field}`, o.direction);
    // The ids last: the part's rows are then in one order (ties are equal rows), so its LIMIT picks the same rows everywhere.
    q = q.orderBy("a.id");
    if (spec.join) q = q.orderBy("b.id");
    q = q.limit(spec.page.limit);
    if (spec.page.offset !== undefined) q = q.offset(spec.page.offset);
  }
  return q;
}

const METHOD = {
  union: ["union", "unionAll"],
  intersect: ["intersect", "intersectAll"],
  except: ["except", "exceptAll"],
} as const;

/** The statement for the spec (it may throw: a refusal when built is an answer too). */
export function buildSetQuery(spec: SetSpec): Executable<unknown> {
  const ctes: unknown[] = [];
  spec.ctes.forEach((c, i) => {
    ctes.push(cteOf(c, i, ctes));
  });
  const [first, ...rest] = spec.parts.map((p) => partOf(p, ctes));
  let q: any = first;
  rest.forEach((part, i) => {
    const { op: setOp, all } = spec.ops[i] as SetSpec["ops"][number];
    q = q[METHOD[setOp][all ? 1 : 0]](part);
  });
  const key = (output: number) => (spec.asCte ? `s.v${output}` : `v${output}`);
  if (spec.asCte) q = select(cte("sets", q) as any, "s");
  for (const o of spec.order)
    q = o.nulls ? q.orderBy(key(o.output), o.direction, { nulls: o.nulls }) : q.orderBy(key(o.output), o.direction);
  if (spec.limit !== undefined) q = q.limit(spec.limit);
  if (spec.offset !== undefined) q = q.offset(spec.offset);
  return q;
}

type Need = keyof DialectCapabilities;

/** The features a spec asks of a dialect, by capability flag. */
export function neededSetCapabilities(spec: SetSpec): Set<Need> {
  const needs = new Set<Need>();
  // Only the CTEs the statement reads are written: those of the parts, and those they read.
  const read = new Set<number>();
  const visit = (source: Source | undefined) => {
    if (typeof source !== "number" || read.has(source)) return;
    read.add(source);
    visit((spec.ctes[source] as CteSpec).from);
  };
  for (const p of spec.parts) [p.from, p.join?.with].forEach(visit);
  if (read.size > 0 || spec.asCte) needs.add("ctes");
  for (const c of spec.ctes.filter((_, i) => read.has(i))) {
    if (c.kind === "recursive") needs.add("recursiveCtes");
    if (c.materialized !== undefined) needs.add("cteMaterialized");
  }
  for (const { op: setOp, all } of spec.ops) {
    if (setOp !== "union") needs.add("intersectExcept");
    if (setOp === "intersect" && all) needs.add("intersectAll");
    if (setOp === "except" && all) needs.add("exceptAll");
  }
  return needs;
}
