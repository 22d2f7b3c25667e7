import fc from "fast-check";
import type { Engine } from "tempest-db-js";
import { column, deleteFrom, insert, Model, select, UnsupportedFeatureError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "./support/databases.js";
import { closeTargets, openTargets } from "./support/databases.js";

// Random window functions (ranks, lag/lead with and without defaults, aggregates over rows, range and
// groups frames) over random rows with NULLs and ties, on every database: the same JavaScript rows,
// or an UnsupportedFeatureError where the dialect's capability flags lack the construct. No oracle:
// the databases are compared with each other. Every window's order ends in the primary key, so the
// answer is one answer. DIFFERENTIAL_WINDOW_RUNS raises the sample, DIFFERENTIAL_SEED replays one.
const RUNS = Number(process.env.DIFFERENTIAL_WINDOW_RUNS ?? process.env.DIFFERENTIAL_RUNS ?? (process.env.CI ? 30 : 60));
const SEED = process.env.DIFFERENTIAL_SEED === undefined ? undefined : Number(process.env.DIFFERENTIAL_SEED);

class WindowRow extends Model {
  static tablename = "differential_window_rows";
  static naming = "snake_case";

  id = column.integer().primaryKey();
  grp = column.integer();
  status = column.enum("open", "paid", "shipped").notNull();
  v = column.integer();
  w = column.integer().notNull();
  t = column.datetime();
}

type Row = { id: number; grp: number | null; status: "open" | "paid" | "shipped"; v: number | null; w: number; t: Date | null };

const rowsArb = fc
  .array(
    fc.record({
      grp: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
      status: fc.constantFrom("open" as const, "paid" as const, "shipped" as const),
      v: fc.option(fc.integer({ min: -50, max: 50 }), { nil: null }),
      w: fc.integer({ min: 0, max: 20 }),
      t: fc.option(
        fc.integer({ min: 0, max: 5 }).map((m) => new Date(Date.UTC(2026, 0, 1, 0, m))),
        { nil: null },
      ),
    }),
    { maxLength: 14 },
  )
  .map((rows): Row[] => rows.map((r, i) => ({ id: i + 1, ...r })));

type Key = "grp" | "status" | "v" | "w" | "t";
const orderArb = fc.array(
  fc.tuple(
    fc.constantFrom<Key>("grp", "status", "v", "w", "t"),
    fc.constantFrom("asc" as const, "desc" as const),
    fc.constantFrom(undefined, "first" as const, "last" as const),
  ),
  { maxLength: 2 },
);
const boundArb = fc.constantFrom(
  "unboundedPreceding" as const,
  { preceding: 2 },
  { preceding: 0 },
  "currentRow" as const,
  { following: 1 },
  "unboundedFollowing" as const,
);
const RANK: Record<string, number> = { unboundedPreceding: 0, currentRow: 2, unboundedFollowing: 4 };
const rank = (b: unknown) => (typeof b === "string" ? (RANK[b] as number) : "preceding" in (b as object) ? 1 : 3);

const specArb = fc.record({
  fn: fc.constantFrom("rowNumber", "rank", "denseRank", "lag", "lead", "sum", "count", "avg", "min", "max"),
  arg: fc.constantFrom<Key>("v", "w", "t", "status"),
  offset: fc.integer({ min: 0, max: 3 }),
  withDefault: fc.boolean(),
  partition: fc.subarray(["grp", "status"] as const),
  order: orderArb,
  frame: fc.option(
    fc.tuple(fc.constantFrom("rows" as const, "range" as const, "groups" as const, "rangeOffset" as const), boundArb, boundArb),
    { nil: undefined },
  ),
});
type Spec = typeof specArb extends fc.Arbitrary<infer S> ? S : never;

const DEFAULTS: Record<Key, unknown> = { v: 7, w: 7, t: new Date(Date.UTC(2030, 0, 1)), status: "paid", grp: 1 };

/** The select for a spec, or undefined when the builder refuses it (the builder's rules are tested elsewhere). */
function build(spec: Spec) {
  const ranking = spec.fn === "rowNumber" || spec.fn === "rank" || spec.fn === "denseRank";
  const offsetFn = spec.fn === "lag" || spec.fn === "lead";
  const rangeOffset = spec.frame?.[0] === "rangeOffset" && !ranking && !offsetFn;
  // The primary key last: no ties, one answer (a range offset takes exactly one key: w, with peers in the frame).
  const orderBy = rangeOffset ? ["w"] : [...spec.order.map(([k, d, n]) => (n ? [k, d, { nulls: n }] : [k, d])), "id"];
  let frame: unknown;
  if (spec.frame && !ranking && !offsetFn) {
    const [unit, a, b] = spec.frame;
    const [start, end] = rank(a) <= rank(b) ? [a, b] : [b, a];
    if (start === "unboundedFollowing" || end === "unboundedPreceding") return undefined;
    if (unit === "rangeOffset") frame = { range: [start, end] };
    else if (unit === "range" && (typeof start !== "string" || typeof end !== "string")) frame = { rows: [start, end] };
    else frame = { [unit]: [start, end] };
  }
  const window = { partitionBy: [...spec.partition], orderBy, ...(frame ? { frame } : {}) } as never;
  try {
    return select(WindowRow)
      .columns((q) => {
        const arg = spec.arg;
        let value: unknown;
        if (ranking) value = q[spec.fn as "rank"]().over(window);
        else if (offsetFn) {
          const options = spec.withDefault ? { offset: spec.offset, default: DEFAULTS[arg] } : { offset: spec.offset };
          value = q[spec.fn as "lag"](arg, options as never).over(window);
        } else if (spec.fn === "count") value = q.count(arg).over(window);
        else if (spec.fn === "sum" || spec.fn === "avg") value = q[spec.fn](arg === "t" || arg === "status" ? "v" : arg).over(window);
        else value = q[spec.fn as "min"](arg).over(window);
        return { id: "id", value: value as never };
      })
      .orderBy("id");
  } catch {
    return undefined;
  }
}

async function answer(engine: Engine, query: NonNullable<ReturnType<typeof build>>) {
  try {
    engine.compile(query);
  } catch (error) {
    if (UnsupportedFeatureError.isInstance(error)) return "refused";
    throw error;
  }
  return engine.execute(query).all();
}

let targets: Target[] = [];
const tally = { queries: 0, built: 0, answered: 0, refusedSomewhere: 0 };

beforeAll(async () => {
  targets = await openTargets();
  for (const t of targets) {
    await t.engine.dropAll([WindowRow]);
    await t.engine.createAll([WindowRow]);
  }
});

afterAll(async () => {
  for (const t of targets) await t.engine.dropAll([WindowRow]);
  await closeTargets(targets);
  console.log(`differential windows: ${JSON.stringify(tally)}`);
});

describe("every database computes a window function the same", () => {
  it("ranks, neighbours and aggregates over windows give the same rows or a typed refusal", async () => {
    await fc.assert(
      fc.asyncProperty(rowsArb, fc.array(specArb, { minLength: 1, maxLength: 5 }), async (rows, specs) => {
        for (const t of targets) {
          await t.prepare();
          await t.engine.execute(deleteFrom(WindowRow).allRows()).rowsAffected();
          if (rows.length > 0) await t.engine.execute(insert(WindowRow).values(rows)).rowsAffected();
        }
        for (const spec of specs) {
          tally.queries++;
          const query = build(spec);
          if (!query) continue;
          tally.built++;
          const answers = [];
          for (const t of targets) answers.push({ label: t.label, rows: await answer(t.engine, query) });
          const given = answers.filter((a) => a.rows !== "refused");
          if (given.length < answers.length) tally.refusedSomewhere++;
          else tally.answered++;
          for (const a of given) {
            expect({ label: a.label, sql: targets[0]?.engine.compile(query).sql, rows: a.rows }).toEqual({
              label: a.label,
              sql: targets[0]?.engine.compile(query).sql,
              rows: given[0]?.rows,
            });
          }
        }
      }),
      { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), endOnFailure: true },
    );
  });
});
