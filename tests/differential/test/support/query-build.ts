import type { Executable } from "tempest-db-js";
import { and, exists, not, notExists, op, or, ref, scalar, select } from "tempest-db-js";
import { MODELS } from "./query-schema.js";
import type { Agg, Cond, Correlated, QuerySpec, Ref, Selection } from "./query-spec.js";
import { TABLE_OF } from "./query-spec.js";

// A QuerySpec as a statement of the query language. The builder is typed for literal models; the
// specs are data, so everything here goes through `any`.

const name = (r: Ref) => `${r.alias}.${r.field}`;

function outer(r: Ref) {
  return ref(MODELS[TABLE_OF[r.alias]] as never, r.alias, r.field as never);
}

/** `select(B, "x")` correlated with the outer query (and filtered) as the spec says. */
function subquery(sub: Correlated | undefined): any {
  let q: any = select(MODELS.B, "x");
  if (sub) {
    q = q.where({ [`x.${sub.field}`]: outer(sub.outer) });
    if (sub.filter) q = q.where({ [`x.${sub.filter.field}`]: (op as any)[sub.filter.op](sub.filter.value) });
  }
  return q;
}

function aggregate(q: any, fn: Agg["fn"], field: string | undefined): unknown {
  if (field === undefined) return q.count();
  return q[fn](field);
}

function scalarOf(agg: Agg, sub: Correlated | undefined): unknown {
  return scalar(subquery(sub).columns((q: any) => ({ v: aggregate(q, agg.fn, agg.field && `x.${agg.field}`) })));
}

export function toCondition(cond: Cond): any {
  switch (cond.t) {
    case "leaf": {
      const operator = cond.op === "isNull" ? op.isNull(cond.value as boolean) : (op as any)[cond.op](cond.value);
      return { [name(cond.ref)]: operator };
    }
    case "and":
      return and(...cond.items.map(toCondition));
    case "or":
      return or(...cond.items.map(toCondition));
    case "not":
      return not(toCondition(cond.item));
    case "exists":
      return (cond.negated ? notExists : exists)(subquery(cond.sub));
    case "inSub": {
      let inner: any = (select(MODELS.B, "x") as any).columns({ v: `x.${cond.field}` });
      if (cond.filter !== undefined) inner = inner.where({ "x.k": op.lte(cond.filter) });
      return { [name(cond.ref)]: cond.negated ? op.notIn(inner) : op.in(inner) };
    }
    case "scalarCmp":
      return { [name(cond.ref)]: (op as any)[cond.op](scalarOf(cond.agg, cond.sub)) };
  }
}

function selection(q: any, s: Selection): unknown {
  switch (s.t) {
    case "ref":
      return name(s.ref);
    case "agg":
      return aggregate(q, s.fn, s.ref && name(s.ref));
    case "scalar":
      return scalarOf(s.agg, s.sub);
  }
}

/** The statement for the spec (it may throw: a refusal when built is an answer too). */
export function buildQuery(spec: QuerySpec): Executable<unknown> {
  let q: any = select(MODELS.A, "a");
  for (const join of spec.joins) {
    const method = `${join.kind}Join`;
    const model = MODELS[TABLE_OF[join.alias]];
    const on: any = { [`${join.alias}.${join.field}`]: outer(join.left) };
    q = q[method](model, join.alias, join.extra ? and(on, toCondition(join.extra)) : on);
  }
  if (spec.where) q = q.where(toCondition(spec.where));
  if (spec.columns) {
    const columns = spec.columns;
    q = q.columns((helpers: any) => Object.fromEntries(columns.map((s) => [s.key, selection(helpers, s)])));
  }
  if (spec.distinct) q = q.distinct();
  if (spec.groupBy) q = q.groupBy(...spec.groupBy.map(name));
  if (spec.having) q = q.having({ [spec.having.key]: (op as any)[spec.having.op](spec.having.value) });
  for (const o of spec.order) {
    const key = o.ref ? name(o.ref) : o.key;
    q = o.nulls ? q.orderBy(key, o.direction, { nulls: o.nulls }) : q.orderBy(key, o.direction);
  }
  if (spec.limit !== undefined) q = q.limit(spec.limit);
  if (spec.offset !== undefined) q = q.offset(spec.offset);
  return q;
}

/** The features a spec asks of a dialect, by capability flag. */
export function neededCapabilities(spec: QuerySpec): Set<"rightJoin" | "fullJoin" | "exactDecimalAggregates"> {
  const needs = new Set<"rightJoin" | "fullJoin" | "exactDecimalAggregates">();
  for (const j of spec.joins) if (j.kind === "right" || j.kind === "full") needs.add(`${j.kind}Join`);
  const decimal = (fn: string, field: string | undefined) => (fn === "sum" || fn === "avg") && field === "m";
  const visit = (c: Cond | undefined): void => {
    if (!c) return;
    if (c.t === "and" || c.t === "or") c.items.forEach(visit);
    else if (c.t === "not") visit(c.item);
    else if (c.t === "scalarCmp" && decimal(c.agg.fn, c.agg.field)) needs.add("exactDecimalAggregates");
  };
  visit(spec.where);
  for (const s of spec.columns ?? []) {
    if (s.t === "agg" && decimal(s.fn, s.ref?.field)) needs.add("exactDecimalAggregates");
    if (s.t === "scalar" && decimal(s.agg.fn, s.agg.field)) needs.add("exactDecimalAggregates");
  }
  return needs;
}
