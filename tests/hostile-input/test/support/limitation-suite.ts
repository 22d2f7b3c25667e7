import type { Engine, Executable } from "tempest-db-js";
import { column, createIndexes, insert, Model, select, UnsupportedFeatureError, uniqueIndex, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { refusedBeforeSending, TRANSACTION_CONTROL } from "./hostile-suite.js";
import { HostileRow } from "./models.js";
import type { OpenTarget, Target } from "./targets.js";

/** The same table as HostileRow, declaring a partial unique index whose predicate is not "IS NOT NULL of its columns". */
class PartialIndexRow extends Model {
  static tablename = "hostile_rows";
  static naming = "snake_case";
  static indexes = [uniqueIndex<PartialIndexRow>("hostile_rows_tag_when_queued", ["tag"]).where({ label: "queued" })];

  id = column.integer().primaryKey();
  label = column.text();
  tag = column.varchar(40);
  data = column.json();
  note = column.text().notNull();
}

const row = { id: 9, label: "queued", tag: "t9" };

/** Statements some dialect cannot express. Each is built the same way everywhere: building never knows the dialect. */
export const catalogue = {
  forUpdate: () => select(HostileRow).forUpdate(),
  forShare: () => select(HostileRow).forShare(),
  skipLocked: () => select(HostileRow).forUpdate({ skipLocked: true }),
  noWait: () => select(HostileRow).forUpdate({ noWait: true }),
  forUpdateOf: () => select(HostileRow).forUpdate({ of: [HostileRow] }),
  forShareOf: () => select(HostileRow).forShare({ of: ["hostile_rows"] }),
  lockedSubquery: () =>
    update(HostileRow)
      .set({ label: "sending" })
      .where({ id: { in: select(HostileRow).where({ label: "queued" }).forUpdate({ skipLocked: true }).asSubquery("id") } }),
  limitInSubquery: () =>
    update(HostileRow)
      .set({ label: "sending" })
      .where({ id: { in: select(HostileRow).where({ label: "queued" }).orderBy("id").limit(1).asSubquery("id") } }),
  offsetInSelectSubquery: () => select(HostileRow).where({ id: { in: select(HostileRow).orderBy("id").offset(1).asSubquery("id") } }),
  conflictTargetDoNothing: () => insert(HostileRow).values(row).onConflictDoNothing(["id"]),
  conflictTargetDoUpdate: () => insert(HostileRow).values(row).onConflictDoUpdate(["id"], { label: "again" }),
  conflictTargetWhere: () =>
    insert(HostileRow)
      .values(row)
      .onConflictDoNothing(["tag"], { where: { tag: { isNull: false } } }),
  onDuplicateKeyUpdate: () => insert(HostileRow).values(row).onDuplicateKeyUpdate({ label: "again" }),
  returningUpdate: () => update(HostileRow).set({ label: "x" }).where({ id: 1 }).returning(["id"]),
  partialUniqueIndex: () => createIndexes(PartialIndexRow)[0] as Executable<never>,
} satisfies Record<string, () => Executable<unknown>>;

export type CatalogueEntry = keyof typeof catalogue;

/** Per dialect: the feature an entry is refused for, or "supported" (it must then compile and run). */
export type Expectations = Record<CatalogueEntry, RegExp | "supported"> & {
  /** `engine.listen` / `engine.notify`. */
  notifications: RegExp | "supported";
};

class Rollback extends Error {}

export function limitationSuite(target: Target, expected: Expectations): void {
  describe(`${target.label}: every limitation is an UnsupportedFeatureError at compile time, table untouched`, () => {
    let open: OpenTarget;
    let engine: Engine;

    beforeAll(async () => {
      open = await target.open();
      engine = open.engine;
      await engine.createAll([HostileRow]);
      await engine
        .execute(
          insert(HostileRow).values([
            { id: 1, label: "queued", tag: "a" },
            { id: 2, label: "queued" },
          ]),
        )
        .rowsAffected();
    });
    afterAll(async () => {
      await open?.close();
    });

    const checkError = (feature: RegExp) => (error: unknown) => {
      expect(error).toBeInstanceOf(UnsupportedFeatureError);
      const e = error as UnsupportedFeatureError;
      expect(UnsupportedFeatureError.isInstance(e)).toBe(true);
      expect(e.code).toBe("UNSUPPORTED_FEATURE");
      expect(e.dialect).toBe(target.dialect);
      expect(e.feature).toMatch(feature);
      expect(e.hint.length).toBeGreaterThan(20);
      expect(e.message).toMatch(target.messageNames);
      expect(e.message).toContain(e.feature);
      expect(e.message).toContain(e.hint);
    };

    for (const [name, build] of Object.entries(catalogue) as [CatalogueEntry, () => Executable<unknown>][]) {
      const expectation = expected[name];
      if (expectation === "supported") {
        test(`${name} is supported: it compiles and runs`, async () => {
          expect(() => engine.compile(build())).not.toThrow();
          // Run, then roll back: the other cases see the same rows.
          await expect(
            engine.transaction(async (tx) => {
              await tx.execute(build()).all();
              throw new Rollback();
            }),
          ).rejects.toBeInstanceOf(Rollback);
        });
      } else {
        test(`${name} is refused: ${expectation.source}`, async () => {
          const statement = build();
          let thrown: unknown;
          try {
            engine.compile(statement);
          } catch (error) {
            thrown = error;
          }
          checkError(expectation)(thrown);
          await refusedBeforeSending(open, () => engine.execute(statement).all(), checkError(expectation));
          // Inside a transaction: only BEGIN and ROLLBACK reach the server.
          await refusedBeforeSending(
            open,
            () => engine.transaction((tx) => tx.execute(build()).all()),
            checkError(expectation),
            TRANSACTION_CONTROL,
          );
        });
      }
    }

    const notifications = expected.notifications;
    if (notifications === "supported") {
      test("notifications are supported: listen then notify delivers the payload", async () => {
        const received: string[] = [];
        const stop = await engine.listen("tempest_hostile_channel", (payload) => received.push(payload));
        try {
          await engine.notify("tempest_hostile_channel", 'it\'s "hostile" $1 ?');
          await expect.poll(() => received).toEqual(['it\'s "hostile" $1 ?']);
        } finally {
          await stop();
        }
      });
    } else {
      test(`notifications are refused: ${notifications.source}`, async () => {
        await refusedBeforeSending(open, () => engine.listen("c", () => {}), checkError(notifications));
        await refusedBeforeSending(open, () => engine.notify("c", "p"), checkError(notifications));
      });
    }
  });
}
