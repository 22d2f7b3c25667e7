import fc from "fast-check";
import type { Field, QueryKind } from "./query-schema.js";
import { FIELDS, KIND_OF, valueArb } from "./query-schema.js";

// A random query over the two tables, as plain data (printable when a case fails): its sources and
// joins, a where tree with subqueries, a projection (whole joined rows, or columns and aggregates
// with groupBy/having/distinct), an order, and a limit only where the order is total.

/** `a` is the root (table A); `b` joins table B; `s` joins table A again (a self-join). */
export type Alias = "a" | "b" | "s";
export const TABLE_OF: Readonly<Record<Alias | "x", "A" | "B">> = { a: "A", b: "B", s: "A", x: "B" };
export type Col = Field | "id";
export interface Ref {
  readonly alias: Alias;
  readonly field: Col;
}
export type JoinKind = "inner" | "left" | "right" | "full";
export type CompareOp = "eq" | "ne" | "lt" | "gt" | "gte";

export interface JoinSpec {
  readonly kind: JoinKind;
  readonly alias: "b" | "s";
  /** `alias.field = left`, the left a column of an earlier source of the same kind. */
  readonly field: Col;
  readonly left: Ref;
  /** A further condition on the joined source, inside ON (an outer join keeps the unmatched rows). */
  readonly extra?: Leaf | undefined;
}

export interface Leaf {
  readonly t: "leaf";
  readonly ref: Ref;
  readonly op: CompareOp | "in" | "notIn" | "isNull";
  readonly value: unknown;
}

/** `select(B, "x")` correlated to the outer query by `x.field = outer`, with an optional filter on x. */
export interface Correlated {
  readonly field: Col;
  readonly outer: Ref;
  readonly filter?: { readonly field: Col; readonly op: CompareOp; readonly value: unknown } | undefined;
}

export type AggFn = "count" | "countDistinct" | "sum" | "avg" | "min" | "max";
export interface Agg {
  readonly fn: AggFn;
  /** On x for a subquery's aggregate; undefined: COUNT(*). */
  readonly field?: Col | undefined;
}

export type Cond =
  | Leaf
  | { readonly t: "and" | "or"; readonly items: readonly Cond[] }
  | { readonly t: "not"; readonly item: Cond }
  | { readonly t: "exists"; readonly negated: boolean; readonly sub: Correlated }
  /** `ref in (select x.field from B x [where ...])`. */
  | { readonly t: "inSub"; readonly negated: boolean; readonly ref: Ref; readonly field: Col; readonly filter?: Leaf["value"] }
  /** `ref op (select agg(x.field) from B x [correlated])`. */
  | { readonly t: "scalarCmp"; readonly ref: Ref; readonly op: CompareOp; readonly agg: Agg; readonly sub?: Correlated | undefined };

export type Selection =
  | { readonly key: string; readonly t: "ref"; readonly ref: Ref }
  | { readonly key: string; readonly t: "agg"; readonly fn: AggFn; readonly ref?: Ref | undefined }
  | { readonly key: string; readonly t: "scalar"; readonly agg: Agg; readonly sub?: Correlated | undefined };

export interface OrderSpec {
  /** A reference, or a key of the projection. */
  readonly ref?: Ref | undefined;
  readonly key?: string | undefined;
  readonly direction: "asc" | "desc";
  readonly nulls?: "first" | "last" | undefined;
}

export interface QuerySpec {
  readonly joins: readonly JoinSpec[];
  readonly where?: Cond | undefined;
  /** undefined: whole joined rows (one object per source). */
  readonly columns?: readonly Selection[] | undefined;
  readonly groupBy?: readonly Ref[] | undefined;
  readonly having?: { readonly key: string; readonly op: CompareOp; readonly value: unknown } | undefined;
  readonly distinct: boolean;
  readonly order: readonly OrderSpec[];
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
}

const ORDERED: ReadonlySet<QueryKind> = new Set(["integer", "real", "numeric", "text", "datetime"]);
const NUMBERS: ReadonlySet<QueryKind> = new Set(["integer", "real", "numeric"]);
export const COLS: readonly Col[] = ["id", ...FIELDS];

export function colsOfKind(kind: QueryKind): Col[] {
  return COLS.filter((c) => KIND_OF[c] === kind);
}

export function refsArb(aliases: readonly Alias[], cols: readonly Col[] = COLS): fc.Arbitrary<Ref> {
  return fc.record({ alias: fc.constantFrom(...aliases), field: fc.constantFrom(...cols) });
}

function opsFor(kind: QueryKind): CompareOp[] {
  return ORDERED.has(kind) ? ["eq", "ne", "lt", "gt", "gte"] : ["eq", "ne"];
}

function leafArb(aliases: readonly Alias[]): fc.Arbitrary<Leaf> {
  return refsArb(aliases).chain((ref) => {
    const kind = KIND_OF[ref.field];
    const value = valueArb(ref.field);
    return fc
      .oneof(
        { weight: 5, arbitrary: fc.record({ op: fc.constantFrom(...opsFor(kind)), value }) },
        {
          weight: 2,
          arbitrary: fc.record({
            op: fc.constantFrom("in" as const, "notIn" as const),
            value: fc.array(value, { minLength: 1, maxLength: 3 }),
          }),
        },
        { weight: 1, arbitrary: fc.record({ op: fc.constant("isNull" as const), value: fc.boolean() }) },
      )
      .map((o): Leaf => ({ t: "leaf", ref, ...o }));
  });
}

function correlatedArb(aliases: readonly Alias[]): fc.Arbitrary<Correlated> {
  return fc.constantFrom(...COLS).chain((field) =>
    fc.record({
      field: fc.constant(field),
      outer: refsArb(aliases, colsOfKind(KIND_OF[field])),
      filter: fc.option(
        fc
          .constantFrom(...COLS)
          .chain((f) => fc.record({ field: fc.constant(f), op: fc.constantFrom(...opsFor(KIND_OF[f])), value: valueArb(f) })),
        { nil: undefined, freq: 2 },
      ),
    }),
  );
}

/** An aggregate over a column; rarely one the rules refuse (min of a boolean, sum of text). */
function aggArb(cols: readonly Col[]): fc.Arbitrary<Agg> {
  const numbers = cols.filter((c) => NUMBERS.has(KIND_OF[c]));
  const minMax = cols.filter((c) => KIND_OF[c] !== "boolean");
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant<Agg>({ fn: "count" }) },
    { weight: 2, arbitrary: fc.record({ fn: fc.constantFrom<AggFn>("count", "countDistinct"), field: fc.constantFrom(...cols) }) },
    { weight: 4, arbitrary: fc.record({ fn: fc.constantFrom<AggFn>("sum", "avg"), field: fc.constantFrom(...numbers) }) },
    { weight: 4, arbitrary: fc.record({ fn: fc.constantFrom<AggFn>("min", "max"), field: fc.constantFrom(...minMax) }) },
    { weight: 1, arbitrary: fc.record({ fn: fc.constantFrom<AggFn>("min", "sum"), field: fc.constantFrom<Col>("f", "t") }) },
  );
}

export function condArb(aliases: readonly Alias[]): fc.Arbitrary<Cond> {
  const subquery = fc.oneof(
    fc.record({ t: fc.constant("exists" as const), negated: fc.boolean(), sub: correlatedArb(aliases) }),
    refsArb(aliases).chain((ref) =>
      fc.record({
        t: fc.constant("inSub" as const),
        negated: fc.boolean(),
        ref: fc.constant(ref),
        field: fc.constantFrom(...colsOfKind(KIND_OF[ref.field])),
        filter: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
      }),
    ),
    refsArb(
      aliases,
      COLS.filter((c) => ORDERED.has(KIND_OF[c])),
    ).chain((ref) =>
      fc.record({
        t: fc.constant("scalarCmp" as const),
        ref: fc.constant(ref),
        op: fc.constantFrom<CompareOp>("eq", "lt", "gt", "gte"),
        agg: fc.constantFrom<Agg>({ fn: "min", field: ref.field }, { fn: "max", field: ref.field }),
        sub: fc.option(correlatedArb(aliases), { nil: undefined }),
      }),
    ),
  );
  const { cond } = fc.letrec<{ cond: Cond }>((tie) => ({
    cond: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      { weight: 4, arbitrary: leafArb(aliases) },
      { weight: 2, arbitrary: subquery },
      { weight: 1, arbitrary: fc.array(tie("cond"), { minLength: 1, maxLength: 3 }).map((items): Cond => ({ t: "and", items })) },
      { weight: 1, arbitrary: fc.array(tie("cond"), { minLength: 1, maxLength: 3 }).map((items): Cond => ({ t: "or", items })) },
      { weight: 1, arbitrary: tie("cond").map((item): Cond => ({ t: "not", item })) },
    ),
  }));
  return cond;
}

function joinsArb(): fc.Arbitrary<readonly JoinSpec[]> {
  const kind = fc.constantFrom<JoinKind>("inner", "inner", "left", "left", "right", "full");
  const join = (alias: "b" | "s", before: readonly Alias[]) =>
    fc.constantFrom<Col>("k", "k", "n", "t", "e", "dt", "m", "r", "f", "id").chain((field) =>
      fc.record({
        kind,
        alias: fc.constant(alias),
        field: fc.constant(field),
        left: refsArb(before, colsOfKind(KIND_OF[field])),
        extra: fc.option(leafArb([alias]), { nil: undefined, freq: 3 }),
      }),
    );
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<readonly JoinSpec[]>([]) },
    { weight: 2, arbitrary: join("b", ["a"]).map((j) => [j]) },
    { weight: 1, arbitrary: join("s", ["a"]).map((j) => [j]) },
    { weight: 2, arbitrary: fc.tuple(join("b", ["a"]), join("s", ["a", "b"])) },
    { weight: 1, arbitrary: fc.tuple(join("s", ["a"]), join("b", ["a", "s"])) },
  );
}

export function aliasesOf(joins: readonly JoinSpec[]): Alias[] {
  return ["a", ...joins.map((j) => j.alias)];
}

/** Whether the order decides every output row's place (ties are then rows equal in every output). */
export function totallyOrdered(spec: Omit<QuerySpec, "limit" | "offset">): boolean {
  const ordered = (ref: Ref) => spec.order.some((o) => o.ref?.alias === ref.alias && o.ref.field === ref.field);
  if (!spec.columns) return aliasesOf(spec.joins).every((alias) => ordered({ alias, field: "id" }));
  if (!spec.groupBy && spec.columns.every((c) => c.t !== "ref")) return true; // one row of aggregates
  return spec.columns.every((c) => spec.order.some((o) => o.key === c.key) || (c.t === "ref" && ordered(c.ref)));
}

function projectionArb(aliases: readonly Alias[]) {
  const refSel = (key: string) => refsArb(aliases).map((ref) => ({ key, t: "ref" as const, ref }));
  const aggSel = (key: string) =>
    aggArb(COLS).chain((agg) =>
      (agg.field === undefined
        ? fc.constant(undefined)
        : fc.constantFrom(...aliases).map((alias): Ref => ({ alias, field: agg.field as Col }))
      ).map((ref) => ({ key, t: "agg" as const, fn: agg.fn, ref })),
    );
  const scalarSel = (key: string) =>
    fc.record({
      key: fc.constant(key),
      t: fc.constant("scalar" as const),
      agg: aggArb(COLS),
      sub: fc.option(correlatedArb(aliases), { nil: undefined, freq: 1 }),
    });
  const keys = ["p", "q", "w"];
  return fc.oneof(
    // Plain columns (maybe distinct), and scalar subqueries beside them.
    {
      weight: 2,
      arbitrary: fc
        .array(fc.oneof({ weight: 4, arbitrary: fc.constant("ref") }, { weight: 1, arbitrary: fc.constant("scalar") }), {
          minLength: 1,
          maxLength: 3,
        })
        .chain((ts) => fc.tuple(...ts.map((t, i) => (t === "ref" ? refSel(keys[i] as string) : scalarSel(keys[i] as string)))))
        .map((columns) => ({ columns: columns as Selection[], groupBy: undefined })),
    },
    // Grouped: the group keys projected (some), and aggregates.
    {
      weight: 3,
      arbitrary: fc
        .uniqueArray(refsArb(aliases), { minLength: 1, maxLength: 2, selector: (r) => `${r.alias}.${r.field}` })
        .chain((groupBy) =>
          fc.tuple(fc.subarray(groupBy), fc.array(fc.constant(0), { minLength: 1, maxLength: 2 })).chain(([shown, aggs]) =>
            fc.tuple(...aggs.map((_, i) => aggSel(`g${i}`))).map((selections) => ({
              columns: [...shown.map((ref, i) => ({ key: `k${i}`, t: "ref" as const, ref })), ...selections] as Selection[],
              groupBy,
            })),
          ),
        ),
    },
    // Aggregates of the whole result: one row, even over no rows.
    {
      weight: 1,
      arbitrary: fc
        .array(fc.constant(0), { minLength: 1, maxLength: 3 })
        .chain((n) =>
          fc.tuple(...n.map((_, i) => aggSel(`g${i}`))).map((columns) => ({ columns: columns as Selection[], groupBy: undefined })),
        ),
    },
  );
}

function orderArb(
  aliases: readonly Alias[],
  columns: readonly Selection[] | undefined,
  groupBy: readonly Ref[] | undefined,
  distinct: boolean,
) {
  const item = (ref: fc.Arbitrary<Partial<OrderSpec>>) =>
    fc
      .record({
        target: ref,
        direction: fc.constantFrom<"asc" | "desc">("asc", "desc"),
        nulls: fc.option(fc.constantFrom<"first" | "last">("first", "last"), { nil: undefined, freq: 2 }),
      })
      .map(({ target, direction, nulls }): OrderSpec => ({ ...target, direction, nulls }));
  if (!columns) {
    const ids = aliases.map((alias): OrderSpec => ({ ref: { alias, field: "id" }, direction: "asc" }));
    return fc
      .tuple(fc.array(item(refsArb(aliases).map((ref) => ({ ref }))), { maxLength: 2 }), fc.boolean(), fc.boolean())
      .map(([keys, tie, reverse]) => [...keys, ...(tie ? (reverse ? [...ids].reverse() : ids) : [])]);
  }
  // Grouped, aggregated or distinct: order by the projection's keys (or the group's references);
  // otherwise by any reference.
  const byKey = item(fc.constantFrom(...columns.map((c) => c.key)).map((key) => ({ key })));
  const aggregated = columns.some((c) => c.t === "agg");
  const byRef = groupBy
    ? item(fc.constantFrom(...groupBy).map((ref) => ({ ref })))
    : distinct || aggregated
      ? byKey
      : item(refsArb(aliases).map((ref) => ({ ref })));
  return fc
    .tuple(fc.array(fc.oneof(byKey, byRef), { maxLength: 2 }), fc.boolean())
    .map(([keys, all]) => (all ? [...keys, ...columns.map((c): OrderSpec => ({ key: c.key, direction: "asc" }))] : keys));
}

export function querySpecArb(): fc.Arbitrary<QuerySpec> {
  return joinsArb().chain((joins) => {
    const aliases = aliasesOf(joins);
    return fc
      .record({
        where: fc.option(condArb(aliases), { nil: undefined, freq: 3 }),
        projection: fc.option(projectionArb(aliases), { nil: undefined, freq: 3 }),
        distinct: fc.boolean(),
        having: fc.boolean(),
      })
      .chain(({ where, projection, distinct, having }) => {
        const columns = projection?.columns;
        const groupBy = projection?.groupBy;
        const isDistinct = distinct && columns !== undefined && columns.length > 0 && groupBy === undefined;
        const aggKeys = columns?.filter((c) => c.t === "agg" && (c.fn === "count" || c.fn === "countDistinct")).map((c) => c.key) ?? [];
        const havingArb =
          having && groupBy && aggKeys.length > 0
            ? fc.record({
                key: fc.constantFrom(...aggKeys),
                op: fc.constantFrom<CompareOp>("gt", "gte", "eq", "ne"),
                value: fc.integer({ min: 0, max: 3 }),
              })
            : fc.constant(undefined);
        return fc
          .record({
            order: orderArb(aliases, columns, groupBy, isDistinct),
            having: havingArb,
            page: fc.option(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined })), {
              nil: undefined,
            }),
          })
          .map(({ order, having: h, page }): QuerySpec => {
            const spec: QuerySpec = { joins, where, columns, groupBy, having: h, distinct: isDistinct, order };
            // A limit only where the order is total: otherwise any rows would be right.
            return page && totallyOrdered(spec) ? { ...spec, limit: page[0], offset: page[1] } : spec;
          });
      });
  });
}
