import fc from "fast-check";
import type { QueryKind } from "./query-schema.js";
import type { Col, Cond } from "./query-spec.js";
import { COLS, colsOfKind, condArb } from "./query-spec.js";

// A random statement of CTEs and set operations over the two query tables, as plain data (printable
// when a case fails): up to two CTEs (plain, MATERIALIZED or not, recursive with a bounded depth, one
// reading the other), then 2-4 parts joined by random set operators, each part reading a table or a
// CTE (a CTE may be read by several parts, and joined to a table), with or without its own
// ORDER BY + LIMIT/OFFSET, and an order and a page of the result.

export type Table = "A" | "B";
/** A table, or the CTE at that index of the spec's list. */
export type Source = Table | number;
export type SetOp = "union" | "intersect" | "except";

export interface CteSpec {
  /** A plain CTE reads a table or an earlier CTE; a recursive one walks a table by consecutive ids. */
  readonly kind: "plain" | "recursive";
  readonly from: Source;
  /** The plain body's filter, or the recursive anchor's, on alias `a`. */
  readonly where?: Cond | undefined;
  /** Plain: the body's `ORDER BY a.id LIMIT n OFFSET m`. */
  readonly page?: { readonly limit: number; readonly offset?: number | undefined } | undefined;
  /** Recursive: the step stops past this id, and writes UNION (distinct) or UNION ALL. */
  readonly maxId?: number | undefined;
  readonly union?: "all" | "distinct" | undefined;
  readonly materialized?: boolean | undefined;
}

export interface PartOrder {
  readonly alias: "a" | "b";
  readonly field: Col;
  readonly direction: "asc" | "desc";
}

export interface PartSpec {
  readonly from: Source;
  /** `b.field = a.field`: another source joined to this one. */
  readonly join?: { readonly kind: "inner" | "left"; readonly with: Source; readonly field: Col } | undefined;
  /** The column of each output, `v0`, `v1`, ... */
  readonly outputs: readonly { readonly alias: "a" | "b"; readonly field: Col }[];
  readonly where?: Cond | undefined;
  /** Ordered by these keys and then the ids (a total order), then limited. */
  readonly page?: { readonly order: readonly PartOrder[]; readonly limit: number; readonly offset?: number | undefined } | undefined;
}

export interface SetOrder {
  readonly output: number;
  readonly direction: "asc" | "desc";
  readonly nulls?: "first" | "last" | undefined;
}

export interface SetSpec {
  readonly ctes: readonly CteSpec[];
  readonly parts: readonly PartSpec[];
  /** The operator joining part i + 1 to what comes before it (left to right). */
  readonly ops: readonly { readonly op: SetOp; readonly all: boolean }[];
  /** The set operation as a CTE that the statement selects from, rather than the statement itself. */
  readonly asCte: boolean;
  readonly order: readonly SetOrder[];
  readonly limit?: number | undefined;
  readonly offset?: number | undefined;
}

const KINDS: readonly QueryKind[] = ["integer", "real", "numeric", "text", "enum", "datetime", "boolean"];

function sourceArb(ctes: number): fc.Arbitrary<Source> {
  const tables = fc.constantFrom<Source>("A", "B");
  if (ctes === 0) return tables;
  return fc.oneof(tables, fc.integer({ min: 0, max: ctes - 1 }));
}

/** A filter on a third of the selects: the parts keep rows to intersect and subtract. */
const where = (aliases: readonly ("a" | "b")[]) =>
  fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: condArb(aliases) });
/** Rarely set: MySQL and MariaDB refuse it, and the statement is then compared on the others only. */
const materialized = fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.boolean() });

function cteArb(before: number): fc.Arbitrary<CteSpec> {
  const plain = fc.record({
    kind: fc.constant("plain" as const),
    from: sourceArb(before),
    where: where(["a"]),
    page: fc.option(
      fc.record({ limit: fc.integer({ min: 0, max: 4 }), offset: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }) }),
      { nil: undefined, freq: 2 },
    ),
    materialized,
  });
  const recursive = fc.record({
    kind: fc.constant("recursive" as const),
    from: fc.constantFrom<Source>("A", "B"),
    where: where(["a"]),
    maxId: fc.integer({ min: 1, max: 6 }),
    union: fc.constantFrom("all" as const, "distinct" as const),
    materialized,
  });
  return fc.oneof({ weight: 3, arbitrary: plain }, { weight: 2, arbitrary: recursive });
}

function ctesArb(): fc.Arbitrary<readonly CteSpec[]> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<readonly CteSpec[]>([]) },
    { weight: 2, arbitrary: cteArb(0).map((c) => [c]) },
    { weight: 2, arbitrary: fc.tuple(cteArb(0), cteArb(1)) },
  );
}

function partArb(kinds: readonly QueryKind[], ctes: number): fc.Arbitrary<PartSpec> {
  const join = fc.option(
    fc.record({
      kind: fc.constantFrom("inner" as const, "left" as const),
      with: sourceArb(ctes),
      field: fc.constantFrom<Col>("id", "k", "k", "n", "t", "e"),
    }),
    { nil: undefined, freq: 3 },
  );
  return join.chain((j) => {
    const aliases: ("a" | "b")[] = j ? ["a", "b"] : ["a"];
    const output = (kind: QueryKind) => fc.record({ alias: fc.constantFrom(...aliases), field: fc.constantFrom(...colsOfKind(kind)) });
    const order = fc.array(
      fc.record({
        alias: fc.constantFrom(...aliases),
        field: fc.constantFrom(...COLS),
        direction: fc.constantFrom("asc" as const, "desc" as const),
      }),
      { maxLength: 2 },
    );
    return fc.record({
      from: sourceArb(ctes),
      join: fc.constant(j),
      outputs: fc.tuple(...kinds.map(output)),
      where: where(aliases),
      page: fc.option(
        fc.record({
          order,
          limit: fc.integer({ min: 0, max: 4 }),
          offset: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
        }),
        { nil: undefined, freq: 3 },
      ),
    });
  });
}

export function setSpecArb(): fc.Arbitrary<SetSpec> {
  // One output mostly: with small pools of values, the parts' rows then meet often.
  const kinds = fc.oneof(
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...KINDS)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...KINDS), fc.constantFrom(...KINDS)) },
  );
  return fc.tuple(kinds, ctesArb(), fc.integer({ min: 2, max: 4 })).chain(([outputs, ctes, n]) =>
    fc
      .record({
        parts: fc.array(partArb(outputs, ctes.length), { minLength: n, maxLength: n }),
        ops: fc.array(fc.record({ op: fc.constantFrom<SetOp>("union", "intersect", "except"), all: fc.boolean() }), {
          minLength: n - 1,
          maxLength: n - 1,
        }),
        asCte: fc.boolean(),
        order: fc.array(
          fc.record({
            output: fc.integer({ min: 0, max: outputs.length - 1 }),
            direction: fc.constantFrom("asc" as const, "desc" as const),
            nulls: fc.option(fc.constantFrom("first" as const, "last" as const), { nil: undefined, freq: 2 }),
          }),
          { maxLength: 2 },
        ),
        every: fc.boolean(),
        page: fc.option(fc.tuple(fc.integer({ min: 0, max: 4 }), fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined })), {
          nil: undefined,
        }),
      })
      .map(({ parts, ops, asCte, order, every, page }): SetSpec => {
        // Ordered by every output (after the chosen keys), the order is total: ties are equal rows.
        const full = every ? [...order, ...outputs.map((_, output): SetOrder => ({ output, direction: "asc" }))] : order;
        const spec: SetSpec = { ctes, parts, ops, asCte, order: full };
        return page && setTotallyOrdered(spec) ? { ...spec, limit: page[0], offset: page[1] } : spec;
      }),
  );
}

/** Whether the result's order decides every row's place (ties are then rows equal in every output). */
export function setTotallyOrdered(spec: Pick<SetSpec, "parts" | "order">): boolean {
  const outputs = spec.parts[0]?.outputs.length ?? 0;
  return Array.from({ length: outputs }, (_, i) => i).every((i) => spec.order.some((o) => o.output === i));
}
