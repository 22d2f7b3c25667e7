import fc from "fast-check";
import type { Engine, Executable, QueryEvent, WhereArg } from "tempest-db-js";
import {
  column,
  deleteFrom,
  index,
  insert,
  Model,
  not,
  or,
  select,
  sql,
  TempestError,
  UnsupportedFeatureError,
  uniqueIndex,
  update,
  ValidationError,
} from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { hostileString, identifierPart, loneSurrogateString, nulString, valueAndDecoy } from "./arbitraries.js";
import { hostileObjects } from "./hostile-objects.js";
import { docOf, HostileRow, Moment, NOTE_DEFAULT, tagOf } from "./models.js";
import type { OpenTarget, Target } from "./targets.js";

/**
 * Runs per property: enough to meet every generator branch, small enough for CI. TEMPEST_PROPERTY_RUNS
 * multiplies them for a longer hunt (`TEMPEST_PROPERTY_RUNS=20 pnpm test`).
 */
const SCALE = Number(process.env.TEMPEST_PROPERTY_RUNS ?? 1) || 1;
const base = { roundTrip: 150, compile: 200, refused: 100, identifiers: 60, anything: 100 };
export const RUNS = Object.fromEntries(Object.entries(base).map(([k, v]) => [k, Math.round(v * SCALE)])) as typeof base;

const loose = (value: unknown) => value as never;

/** Every row, in id order: what "untouched" is compared against. */
async function snapshot(engine: Engine): Promise<unknown[]> {
  return engine.execute(select(HostileRow).orderBy("id")).all();
}

async function ids(engine: Engine, where: WhereArg<HostileRow>): Promise<number[]> {
  const rows = await engine.execute(select(HostileRow, ["id"]).where(where).orderBy("id")).all();
  return rows.map((row) => row.id);
}

/** Transaction control, which a refused statement inside `transaction()` may leave behind it. */
export const TRANSACTION_CONTROL = /^(BEGIN|START TRANSACTION|ROLLBACK|COMMIT)\b/;

/**
 * Asserts `attempt` fails (thrown while building, or rejected before sending), that `check` accepts
 * the error, that no statement reached the server (apart from `allowed` ones), and that the table
 * holds the same rows as before.
 */
export async function refusedBeforeSending(
  target: OpenTarget,
  attempt: () => Promise<unknown>,
  check: (error: unknown) => void,
  allowed?: RegExp,
): Promise<void> {
  const before = await snapshot(target.engine);
  const sentBefore = target.sent.length;
  let failure: unknown;
  try {
    await attempt();
  } catch (error) {
    failure = error;
  }
  expect(failure, "the attempt should have failed").toBeDefined();
  check(failure);
  const sent = target.sent.slice(sentBefore).map((e: QueryEvent) => e.sql);
  expect(sent.filter((text) => !allowed?.test(text))).toEqual([]);
  expect(await snapshot(target.engine)).toEqual(before);
}

const isValidation = (error: unknown) => expect(error).toBeInstanceOf(ValidationError);

/** A like pattern made of the value: `%` after it, so that a trailing backslash (refused: it escapes nothing) escapes the `%`. */
const pattern = (v: string) => `${v}%`;

/** Statement shapes that every dialect can run, with one hostile string in every value position. */
const shapes: Record<string, (v: string) => Executable<unknown>> = {
  "select where eq": (v) => select(HostileRow).where({ label: v }),
  "select where operators": (v) =>
    select(HostileRow).where({
      label: { ne: v, lt: v, gte: v, in: [v, v], notIn: [v], between: [v, v], like: pattern(v), ilike: pattern(v) },
    }),
  "select where or/not": (v) => select(HostileRow, ["id"]).where(or({ label: v }, not({ label: { like: pattern(v) } }))),
  "select where sql.expr": (v) => select(HostileRow).where(sql.expr`${sql.ref("label")} = ${v} or ${sql.ref("tag")} = ${sql.expr`${v}`}`),
  "update set": (v) =>
    update(HostileRow)
      .set({ label: v, data: docOf(v) })
      .where({ label: { ne: v } }),
  "update set sql.expr": (v) =>
    update(HostileRow)
      .set({ label: sql.expr`${v}` })
      .where({ label: { in: [v] } }),
  "insert values": (v) =>
    insert(HostileRow).values([
      { id: 1, label: v, data: v },
      { id: 2, label: v },
    ]),
  "delete where": (v) => deleteFrom(HostileRow).where({ label: { like: pattern(v) } }),
};

export function hostileInputSuite(target: Target): void {
  describe(`${target.label}: hostile values`, () => {
    let open: OpenTarget;
    let engine: Engine;

    beforeAll(async () => {
      open = await target.open();
      engine = open.engine;
      await engine.createAll([HostileRow]);
    });
    afterAll(async () => {
      await open?.close();
    });

    test(`the dialect ${target.nul ? "keeps" : "refuses"} NUL in text (capability nulInText)`, () => {
      expect(engine.capabilities.nulInText).toBe(target.nul);
    });

    test("two different strings compile to the same SQL in every value position; only the parameters differ", () => {
      fc.assert(
        fc.property(valueAndDecoy(target.nul), fc.constantFrom(...Object.values(shapes)), ([a, b], shape) => {
          const ca = engine.compile(shape(a));
          const cb = engine.compile(shape(b));
          expect(cb.sql).toBe(ca.sql);
          expect(cb.sql).toBe(engine.compile(shape("x")).sql);
          expect(ca.params).not.toEqual(cb.params);
        }),
        { numRuns: RUNS.compile },
      );
    });

    test("strings round-trip exactly through values, set, where, json and sql.expr, and equality finds only the equal row", async () => {
      await fc.assert(
        fc.asyncProperty(valueAndDecoy(target.nul), async ([value, decoy]) => {
          await engine.execute(deleteFrom(HostileRow).allRows()).rowsAffected();
          const rows = [
            { id: 1, label: value, tag: tagOf(value), data: docOf(value) },
            { id: 2, label: decoy, tag: tagOf(decoy), data: docOf(decoy) },
          ];
          expect(await engine.execute(insert(HostileRow).values(rows)).rowsAffected()).toBe(2);
          expect(await snapshot(engine)).toEqual(rows.map((row) => ({ ...row, note: NOTE_DEFAULT })));

          expect(await ids(engine, { label: value })).toEqual([1]);
          expect(await ids(engine, { label: { eq: decoy } })).toEqual([2]);
          expect(await ids(engine, { label: { in: [value] } })).toEqual([1]);
          expect(await ids(engine, { label: { in: [decoy, value, decoy] } })).toEqual([1, 2]);
          expect(await ids(engine, { label: { notIn: [value] } })).toEqual([2]);
          expect(await ids(engine, { label: { ne: value } })).toEqual([2]);
          expect(await ids(engine, { label: { between: [value, value] } })).toEqual([1]);
          if (tagOf(value) !== null) expect(await ids(engine, { tag: value })).toEqual([1]);
          expect(await ids(engine, sql.expr`${sql.ref("label")} = ${value}`)).toEqual([1]);
          // A pattern matches itself: % and _ match themselves too. A backslash is LIKE's escape
          // character on PostgreSQL and MySQL (not on SQLite), so it is left out here.
          if (!value.includes("\\")) {
            expect(await ids(engine, { label: { like: value } })).toContain(1);
            expect(await ids(engine, { label: { ilike: value } })).toContain(1);
          }
          expect(await engine.execute(sql.expr`SELECT ${value} AS v`).scalar()).toBe(value);

          const updated = await engine
            .execute(
              update(HostileRow)
                .set({ label: decoy, data: docOf(decoy) })
                .where({ label: value }),
            )
            .rowsAffected();
          expect(updated).toBe(1);
          expect(await ids(engine, { label: decoy })).toEqual([1, 2]);
          expect(await ids(engine, { label: value })).toEqual([]);
          const one = await engine.execute(select(HostileRow, ["label", "data"]).where({ id: 1 })).one();
          expect(one).toEqual({ label: decoy, data: docOf(decoy) });
        }),
        { numRuns: RUNS.roundTrip },
      );
    });

    if (!target.nul) {
      test("a NUL in any value is a ValidationError before anything is sent; the table is untouched", async () => {
        await engine.execute(deleteFrom(HostileRow).allRows()).rowsAffected();
        await engine.execute(insert(HostileRow).values({ id: 1, label: "kept" })).rowsAffected();
        await fc.assert(
          fc.asyncProperty(nulString, fc.constantFrom(...Object.values(shapes)), async (value, shape) => {
            await refusedBeforeSending(
              open,
              () => engine.execute(shape(value)).all(),
              (error) => {
                isValidation(error);
                expect(String(error)).toMatch(/NUL/);
              },
            );
          }),
          { numRuns: RUNS.refused },
        );
      });
    } else {
      test("NUL round-trips and compares like any other character", async () => {
        await engine.execute(deleteFrom(HostileRow).allRows()).rowsAffected();
        await fc.assert(
          fc.asyncProperty(nulString, async (value) => {
            await engine.execute(deleteFrom(HostileRow).allRows()).rowsAffected();
            const prefix = value.slice(0, value.indexOf("\0"));
            await engine
              .execute(
                insert(HostileRow).values([
                  { id: 1, label: value, data: docOf(value) },
                  { id: 2, label: prefix },
                ]),
              )
              .rowsAffected();
            expect(await ids(engine, { label: value })).toEqual([1]);
            expect(await ids(engine, { label: prefix })).toEqual([2]);
            // Without wildcards or LIKE's escape character, the pattern matches only itself.
            if (!/[%_\\]/.test(prefix)) expect(await ids(engine, { label: { like: prefix } })).toEqual([2]);
            expect(await engine.execute(select(HostileRow, ["label", "data"]).where({ id: 1 })).one()).toEqual({
              label: value,
              data: docOf(value),
            });
          }),
          { numRuns: RUNS.refused },
        );
      });
    }

    test("a lone surrogate in any value is a ValidationError before anything is sent; the table is untouched", async () => {
      await engine.execute(deleteFrom(HostileRow).allRows()).rowsAffected();
      await engine.execute(insert(HostileRow).values({ id: 1, label: "kept" })).rowsAffected();
      await fc.assert(
        fc.asyncProperty(loneSurrogateString, fc.constantFrom(...Object.values(shapes)), async (value, shape) => {
          await refusedBeforeSending(
            open,
            () => engine.execute(shape(value)).all(),
            (error) => {
              isValidation(error);
              expect(String(error)).toMatch(/surrogate/);
            },
          );
        }),
        { numRuns: RUNS.refused },
      );
    });

    test("NUL or a lone surrogate in SQL text (sql.raw) is refused on every dialect, before anything is sent", async () => {
      // SQLite's prepare stops at NUL: without the check it would run "DELETE FROM hostile_rows" alone.
      for (const [statement, condition] of [
        ["DELETE FROM hostile_rows\0 WHERE 1 = 0", "1 = 1\0 AND 1 = 0"],
        ["SELECT '\ud800'", "label = '\ud800'"],
      ] as const) {
        await refusedBeforeSending(open, () => engine.execute(sql.raw(statement)).rowsAffected(), isValidation);
        await refusedBeforeSending(
          open,
          () => engine.execute(deleteFrom(HostileRow).where(sql.raw(condition))).rowsAffected(),
          isValidation,
        );
      }
    });

    test("objects, arrays, functions, symbols and class instances in set, values and where are ValidationErrors; nothing is written", async () => {
      await engine.execute(deleteFrom(HostileRow).allRows()).rowsAffected();
      await engine.execute(insert(HostileRow).values({ id: 1, label: "admin", tag: "admin", data: { role: "admin" } })).rowsAffected();
      const attempts: [string, (value: unknown) => Executable<unknown>][] = [
        [
          "update set text",
          (value) =>
            update(HostileRow)
              .set(loose({ label: value }))
              .where({ id: 1 }),
        ],
        [
          "update set integer",
          (value) =>
            update(HostileRow)
              .set(loose({ id: value }))
              .where({ id: 1 }),
        ],
        ["insert values text", (value) => insert(HostileRow).values(loose({ id: 2, label: value }))],
        ["insert values varchar", (value) => insert(HostileRow).values(loose([{ id: 2 }, { id: 3, tag: value }]))],
        [
          "update where",
          (value) =>
            update(HostileRow)
              .set({ label: "pwned" })
              .where(loose({ label: value })),
        ],
        ["delete where", (value) => deleteFrom(HostileRow).where(loose({ label: value }))],
        ["delete where eq", (value) => deleteFrom(HostileRow).where(loose({ tag: { eq: value } }))],
        ["delete where in", (value) => deleteFrom(HostileRow).where(loose({ label: { in: [value] } }))],
        ["delete where sql.expr", (value) => deleteFrom(HostileRow).where(sql.expr`label = ${value}`)],
      ];
      /** Bindable without a column, hence legal as an sql.expr value. */
      const freeValues = ["a Date", "a Buffer", "a Uint8Array", "a bigint"];
      for (const [name, make] of hostileObjects()) {
        for (const [attemptName, attempt] of attempts) {
          if (attemptName === "delete where sql.expr" && freeValues.includes(name)) continue;
          await refusedBeforeSending(
            open,
            async () => engine.execute(attempt(make())).rowsAffected(),
            (error) => expect(error, `${name} in ${attemptName}`).toBeInstanceOf(ValidationError),
          );
        }
      }
      // where({ secret: { name: "admin" } }) must never become SQL.
      await refusedBeforeSending(
        open,
        async () => engine.execute(deleteFrom(HostileRow).where(loose({ label: { name: "admin" } }))).rowsAffected(),
        isValidation,
      );
    });

    test("anything fast-check can make is either refused before sending, or stored and read back as the same string", async () => {
      await engine.execute(deleteFrom(HostileRow).allRows()).rowsAffected();
      await engine.execute(insert(HostileRow).values({ id: 1, label: "start" })).rowsAffected();
      await fc.assert(
        fc.asyncProperty(
          fc.anything({
            withBigInt: true,
            withDate: true,
            withMap: true,
            withSet: true,
            withTypedArray: true,
            withNullPrototype: true,
            withBoxedValues: true,
          }),
          async (value) => {
            let built: Executable<unknown>;
            try {
              built = update(HostileRow)
                .set(loose({ label: value }))
                .where({ id: 1 });
              engine.compile(built);
            } catch (error) {
              await refusedBeforeSending(
                open,
                async () =>
                  engine
                    .execute(
                      update(HostileRow)
                        .set(loose({ label: value }))
                        .where({ id: 1 }),
                    )
                    .rowsAffected(),
                (e) => {
                  expect(e).toBeInstanceOf(ValidationError);
                },
              );
              expect(error).toBeInstanceOf(ValidationError);
              return;
            }
            expect(value === null || typeof value === "string").toBe(true);
            await engine.execute(built).rowsAffected();
            expect((await engine.execute(select(HostileRow, ["label"]).where({ id: 1 })).one()).label).toBe(value);
          },
        ),
        { numRuns: RUNS.anything },
      );
    });
  });

  describe(`${target.label}: datetimes at the edges`, () => {
    let open: OpenTarget;
    let engine: Engine;

    beforeAll(async () => {
      open = await target.open();
      engine = open.engine;
      await engine.createAll([Moment]);
    });
    afterAll(async () => {
      await open?.close();
    });

    const inRange = fc.date({ min: new Date("0000-01-01T00:00:00.000Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true });
    const anyDate = fc.oneof(inRange, fc.date({ noInvalidDate: true }), fc.constantFrom(new Date(8.64e15), new Date(-8.64e15)));

    test("datetimes in years 0000-9999 round-trip exactly, sort and compare like the instants they are", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(inRange, { minLength: 1, maxLength: 6 }), inRange, async (dates, pivot) => {
          await engine.execute(deleteFrom(Moment).allRows()).rowsAffected();
          await engine.execute(insert(Moment).values(dates.map((at, id) => ({ id, at })))).rowsAffected();
          const rows = await engine.execute(select(Moment).orderBy("at").orderBy("id")).all();
          const expected = dates.map((at, id) => ({ id, at })).sort((a, b) => a.at.getTime() - b.at.getTime() || a.id - b.id);
          expect(rows).toEqual(expected);
          const due = await engine
            .execute(
              select(Moment, ["id"])
                .where({ at: { lte: pivot } })
                .orderBy("id"),
            )
            .all();
          expect(due.map((r) => r.id)).toEqual(
            expected
              .filter((r) => r.at.getTime() <= pivot.getTime())
              .map((r) => r.id)
              .sort((a, b) => a - b),
          );
        }),
        { numRuns: RUNS.refused },
      );
    });

    test("a datetime the dialect cannot store faithfully is refused, never stored out of order", async () => {
      await fc.assert(
        fc.asyncProperty(anyDate, async (at) => {
          await engine.execute(deleteFrom(Moment).allRows()).rowsAffected();
          const now = new Date("2030-01-01T00:00:00.000Z");
          await engine.execute(insert(Moment).values({ id: 1, at: now })).rowsAffected();
          try {
            await engine.execute(insert(Moment).values({ id: 2, at })).rowsAffected();
          } catch (error) {
            // Refused with a typed error: by the dialect before sending (ValidationError), or by the server (QueryError).
            expect(TempestError.isInstance(error)).toBe(true);
            expect(await engine.execute(select(Moment, ["id"])).all()).toEqual([{ id: 1 }]);
            return;
          }
          const order = (await engine.execute(select(Moment, ["id"]).orderBy("at").orderBy("id")).all()).map((r) => r.id);
          expect(order).toEqual(at.getTime() < now.getTime() ? [2, 1] : at.getTime() > now.getTime() ? [1, 2] : [1, 2]);
          expect((await engine.execute(select(Moment).where({ id: 2 })).one()).at).toEqual(at);
        }),
        { numRuns: RUNS.refused },
      );
    });
  });

  describe(`${target.label}: hostile identifiers`, () => {
    let open: OpenTarget;
    let engine: Engine;
    let n = 0;

    beforeAll(async () => {
      open = await target.open();
      engine = open.engine;
    });
    afterAll(async () => {
      await open?.close();
    });

    /** A model whose table, column (via .name()), index and enum value are hostile, and a hostile DDL default. */
    function modelNamed(table: string, columnName: string, indexName: string, enumValue: string, fallback: string) {
      class Hostile extends Model {
        static tablename = table;
        static indexes = [
          uniqueIndex<Hostile>(indexName, ["value"]).where({ value: { isNull: false } }),
          // A literal in the predicate (dropped on MySQL, where a non-unique index only changes speed).
          index<Hostile>(`${indexName}_2`, ["kind"]).where({ kind: enumValue }),
        ];
        id = column.integer().primaryKey();
        value = column.text().name(columnName);
        kind = column.enum(enumValue, "plain");
        note = column.text().notNull().default(fallback);
      }
      return Hostile;
    }

    test("table, column, index and enum names of any characters work end to end, or are refused with ValidationError", async () => {
      await fc.assert(
        fc.asyncProperty(
          identifierPart(24),
          identifierPart(24),
          identifierPart(24),
          hostileString({ nul: false, maxLength: 20 }).filter((s) => s !== "plain"),
          identifierPart(60),
          identifierPart(60),
          async (t, c, i, enumValue, fallback, value) => {
            n++;
            // Suffixes keep names unique per run and never let a name end in a space.
            const fit = target.serverFit;
            const names = { table: fit(`${t}_t${n}`), column: fit(`${c}_c`), index: fit(`${i}_i${n}`), index2: fit(`${i}_i${n}_2`) };
            const Hostile = modelNamed(names.table, names.column, names.index, enumValue, fallback);
            if (Object.values(names).some(target.tooLong)) {
              await expect(engine.createAll([Hostile])).rejects.toBeInstanceOf(ValidationError);
              // The table exists when only the index name was too long.
              if (!target.tooLong(names.table)) await engine.dropAll([Hostile]);
              return;
            }
            if (target.enumUnsupported(enumValue)) {
              await expect(engine.createAll([Hostile])).rejects.toBeInstanceOf(UnsupportedFeatureError);
              return;
            }
            const v = value;
            try {
              await engine.createAll([Hostile]);
              await engine
                .execute(
                  insert(Hostile).values([
                    { id: 1, value: v, kind: enumValue },
                    { id: 2, kind: "plain" },
                  ]),
                )
                .rowsAffected();
              // The partial unique index holds: a second row with the same value is skipped, not inserted.
              await engine.execute(insert(Hostile).values({ id: 3, value: v, kind: "plain" }).ignoreDuplicates()).rowsAffected();
              expect(await engine.execute(select(Hostile).orderBy("id")).all()).toEqual([
                { id: 1, value: v, kind: enumValue, note: fallback },
                { id: 2, value: null, kind: "plain", note: fallback },
              ]);
              expect(await engine.execute(select(Hostile, ["id"]).where({ value: v, kind: enumValue })).all()).toEqual([{ id: 1 }]);
              expect(await engine.execute(deleteFrom(Hostile).where({ kind: enumValue })).rowsAffected()).toBe(1);
              expect(
                await engine
                  .execute(
                    update(Hostile)
                      .set({ value: sql.ref("note") })
                      .where({ id: 2 }),
                  )
                  .rowsAffected(),
              ).toBe(1);
              expect(await engine.execute(select(Hostile, ["value"])).all()).toEqual([{ value: fallback }]);
            } finally {
              await engine.dropAll([Hostile]);
            }
          },
        ),
        { numRuns: RUNS.identifiers },
      );
    });

    test("NUL or a lone surrogate in an identifier is a ValidationError before anything is sent", async () => {
      for (const bad of ["a\0b", "\0", "a\ud800b"]) {
        for (const Hostile of [
          modelNamed(bad, "c", "i", "e", "f"),
          modelNamed("t_bad", bad, "i", "e", "f"),
          modelNamed("t_bad", "c", bad, "e", "f"),
        ]) {
          const before = open.sent.length;
          await expect(engine.createAll([Hostile])).rejects.toBeInstanceOf(ValidationError);
          // Only statements of the valid model parts may have run (the table, when the index name is the bad one).
          for (const event of open.sent.slice(before)) expect(event.sql).not.toContain(bad);
          await engine.dropAll([Hostile]).catch(() => {});
        }
      }
    });
  });
}
