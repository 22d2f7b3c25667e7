import type { Executable } from "tempest-db-js";
import { col, fn, select } from "tempest-db-js";
import type { AggSpec, E, QuerySpec } from "./expression-spec.js";
import { ExprRow } from "./expression-spec.js";

// A tree of expression-spec.ts as a typed expression, built with `fn` (columns as col(ExprRow, f))
// or with the query helpers `q` (columns as field names): both paths build the same nodes. The
// trees are data, so everything goes through `any` here.

type Helpers = any;

function literal(e: Extract<E, { t: "lit" }>, h: Helpers): unknown {
  const v = e.v;
  if (typeof v === "string" && v.endsWith("n") && /^-?\d+n$/.test(v)) return BigInt(v.slice(0, -1));
  if (e.as === "datetime") return new Date(v as string);
  if (e.as !== undefined && e.as !== "integer") return h.val(v, e.as === "text" ? undefined : e.as);
  return v;
}

/** A boolean tree as a condition: a comparison is one; a column or a CASE of booleans is compared with true. */
function condition(e: E, h: Helpers, q: boolean): any {
  return e.t === "cmp" ? expression(e, h, q) : h.eq(expression(e, h, q), true);
}

export function expression(e: E, h: Helpers, q: boolean): any {
  const x = (c: E) => expression(c, h, q);
  switch (e.t) {
    case "col":
      return q ? e.f : col(ExprRow, e.f as never);
    case "lit":
      return literal(e, h);
    case "arith":
      return h[e.op](x(e.a), x(e.b));
    case "neg":
      return h.neg(x(e.a));
    case "coalesce":
      return h.coalesce(...e.args.map(x));
    case "nullif":
      return h.nullif(x(e.a), x(e.b));
    case "extreme":
      return h[e.fn](...e.args.map(x));
    case "case": {
      const [first, ...rest] = e.branches;
      let c = h.case(condition((first as readonly [E, E])[0], h, q), x((first as readonly [E, E])[1]));
      for (const [when, then] of rest) c = c.when(condition(when, h, q), x(then));
      return e.otherwise === undefined ? c : c.else(x(e.otherwise));
    }
    case "cast":
      return h.cast(x(e.a), e.to);
    case "cmp":
      return h[e.op](x(e.a), x(e.b));
    case "str":
      if (e.fn === "concat") return h.concat(...e.args.map(x));
      if (e.fn === "substring") return h.substring(x(e.args[0] as E), e.start, e.length);
      return h[e.fn](x(e.args[0] as E));
    case "length":
      return h.length(x(e.a));
    case "trunc":
      return h.dateTrunc(e.unit, x(e.a));
    case "field":
      return h.extract(e.field, x(e.a));
    case "shift":
      return h[e.sub ? "subInterval" : "addInterval"](x(e.a), x(e.amount), e.unit);
    case "diff":
      return h.diffSeconds(x(e.a), x(e.b));
  }
}

function aggregate(a: AggSpec, h: Helpers, q: boolean): any {
  const options = { ...(a.filter === undefined ? {} : { filter: condition(a.filter, h, q) }), ...(a.distinct ? { distinct: true } : {}) };
  return h[a.fn](expression(a.value, h, q), options);
}

/** A HAVING over an aggregate: it compared with a constant of its family. */
function having(a: AggSpec): any {
  const agg = aggregate(a, fn, false);
  const gt = fn.gt as (a: unknown, b: unknown) => unknown;
  const kind: string = agg.node.type.kind;
  if (kind === "datetime") return gt(agg, new Date(Date.UTC(2000, 0, 1)));
  if (kind === "date") return gt(agg, fn.val("2000-01-01", "date"));
  return gt(agg, 0);
}

/** The statement of a spec; `q` chooses the query helpers over `fn` where a projection allows both. */
export function buildExpressionQuery(spec: QuerySpec, q: boolean): Executable<unknown> {
  switch (spec.shape) {
    case "columns": {
      let s: any = select(ExprRow).columns((h: Helpers) => {
        const cols: Record<string, unknown> = { id: "id" };
        spec.values.forEach((v, n) => {
          cols[`v${n}`] = expression(v, q ? h : fn, q);
        });
        return cols as never;
      });
      if (spec.where) s = s.where(condition(spec.where, fn, false));
      return s.orderBy("id");
    }
    case "where":
      return select(ExprRow, ["id"])
        .where(condition(spec.where, fn, false))
        .orderBy("id");
    case "orderBy": {
      let s: any = select(ExprRow, ["id"]);
      if (spec.where) s = s.where(condition(spec.where, fn, false));
      return s.orderBy(expression(spec.key, fn, false), spec.desc ? "desc" : "asc").orderBy("id");
    }
    case "group": {
      let s: any = select(ExprRow).columns((h: Helpers) => {
        const cols: Record<string, unknown> = { n: h.count() };
        if (spec.key) cols.k = expression(spec.key, q ? h : fn, q);
        spec.aggs.forEach((a, n) => {
          cols[`a${n}`] = aggregate(a, q ? h : fn, q);
        });
        return cols as never;
      });
      if (spec.key) s = s.groupBy("k");
      if (spec.having) s = s.having(having(spec.having));
      return s;
    }
  }
}

/** Whether the statement's rows come in one order on every database (else they are compared as multisets). */
export function ordered(spec: QuerySpec): boolean {
  return spec.shape !== "group";
}

function findNode(statement: Executable<unknown>, test: (node: Record<string, any>) => boolean): boolean {
  const seen = new Set<unknown>();
  const visit = (value: unknown): boolean => {
    if (typeof value !== "object" || value === null || seen.has(value)) return false;
    seen.add(value);
    if (test(value as Record<string, any>)) return true;
    for (const child of Object.values(value as object)) if (visit(child)) return true;
    return false;
  };
  return visit(statement.toNode());
}

/** Whether a built statement surely computes exact decimals (arithmetic, casts, SUM / AVG over numeric values). */
export function needsExactDecimals(statement: Executable<unknown>): boolean {
  return findNode(
    statement,
    (node) =>
      ((node.kind === "arithmetic" || node.kind === "negate") && node.type?.kind === "numeric") ||
      // A cast of a numeric to numeric (a NULL literal cast to numeric is one) is its operand, unchanged.
      (node.kind === "cast" && node.type?.kind === "numeric" && node.from !== "numeric") ||
      (node.kind === "cast" && node.from === "numeric" && node.type?.kind !== "numeric") ||
      (node.kind === "aggregateOf" && (node.fn === "sum" || node.fn === "avg") && node.operandKind === "numeric"),
  );
}

/** Whether a numeric value is anywhere in a built statement (what a database without exact decimals may refuse). */
export function touchesNumeric(statement: Executable<unknown>): boolean {
  return findNode(statement, (node) => node.kind === "numeric" || node.type?.kind === "numeric" || node.operandKind === "numeric");
}

/** Whether a built statement shifts a datetime by months or years (refused where `calendarIntervals` is false). */
export function shiftsByCalendar(statement: Executable<unknown>): boolean {
  return findNode(statement, (node) => node.kind === "datetimeShift" && (node.unit === "months" || node.unit === "years"));
}
