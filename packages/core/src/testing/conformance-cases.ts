import { expect } from "vitest";
import { and, not, or } from "../builder/condition.js";
import { createIndexes, createTable } from "../builder/ddl.js";
import { deleteFrom } from "../builder/delete-builder.js";
import type { Executable } from "../builder/executable.js";
import { insert } from "../builder/insert-builder.js";
import { op } from "../builder/op.js";
import { select } from "../builder/select.js";
import { update } from "../builder/update-builder.js";
import type { Engine } from "../engine/engine.js";
import { QueryError } from "../errors.js";
import { sql } from "../expression/sql.js";
import { ConformanceJob, JOB_IDS, T0, T1 } from "./conformance-models.js";
import { setCases } from "./conformance-set-cases.js";

export interface ConformanceCase {
  /** Builds the statement under test; its compiled SQL is compared with the dialect's expectation. */
  readonly build: () => Executable<unknown>;
  /** Runs the statement on the real server (after a fresh seed) and checks what it did. */
  readonly check?: (engine: Engine, query: Executable<unknown>) => Promise<void>;
}

const NEW_ID = "00000000-0000-4000-8000-0000000000aa";

export const seedJobs = [
  { id: JOB_IDS[0], consumer: "billing", idempotencyKey: "k1", status: "queued" as const, attempts: 0, nextAttemptAt: T0 },
  { id: JOB_IDS[1], consumer: "billing", idempotencyKey: null, status: "queued" as const, attempts: 2, nextAttemptAt: T1 },
  { id: JOB_IDS[2], consumer: "mail", idempotencyKey: "k1", status: "sent" as const, attempts: 1, nextAttemptAt: T0 },
];

const claimable = () => select(ConformanceJob, ["id"]).where({ status: "queued" }).orderBy("nextAttemptAt").limit(10);
const job = (id: string) => select(ConformanceJob).where({ id });
const idsOf = (rows: readonly { id: string }[]) => rows.map((r) => r.id);
const duplicateOfFirst = { id: NEW_ID, consumer: "billing", idempotencyKey: "k1", status: "queued" as const, nextAttemptAt: T1 };

/** Rows returned by a query, by field. */
async function rowsOf(engine: Engine, query: Executable<unknown>) {
  return (await engine.execute(query).all()) as Record<string, unknown>[];
}

export const conformanceCases = {
  "insert.values": {
    build: () => insert(ConformanceJob).values([...seedJobs, { id: NEW_ID, consumer: "sms", status: "failed", nextAttemptAt: T1 }]),
    check: async (engine, query) => {
      await engine.execute(deleteFrom(ConformanceJob).allRows()).rowsAffected();
      expect(await engine.execute(query).rowsAffected()).toBe(4);
      const row = await engine.execute(job(NEW_ID)).one();
      expect(row).toEqual({
        id: NEW_ID,
        consumer: "sms",
        idempotencyKey: null,
        status: "failed",
        attempts: 0,
        nextAttemptAt: T1,
        updatedAt: null,
      });
    },
  },
  "insert.returning": {
    build: () => insert(ConformanceJob).values({ id: NEW_ID, consumer: "sms", status: "queued", nextAttemptAt: T0 }).returning(),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([
        { id: NEW_ID, consumer: "sms", idempotencyKey: null, status: "queued", attempts: 0, nextAttemptAt: T0, updatedAt: null },
      ]);
    },
  },
  "select.where": {
    build: () =>
      select(ConformanceJob, ["id", "attempts"])
        .where({ consumer: "billing", attempts: op.gte(0) })
        .orderBy("nextAttemptAt", "desc")
        .orderBy("id")
        .limit(5)
        .offset(0),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([
        { id: JOB_IDS[1], attempts: 2 },
        { id: JOB_IDS[0], attempts: 0 },
      ]);
    },
  },
  "select.operators": {
    build: () =>
      select(ConformanceJob, ["id"])
        .where(or({ status: op.in(["sending", "sent"]) }, and({ idempotencyKey: op.isNull(true) }, not({ attempts: op.between(0, 1) }))))
        .orderBy("id"),
    check: async (engine, query) => {
      expect(idsOf((await rowsOf(engine, query)) as { id: string }[])).toEqual([JOB_IDS[1], JOB_IDS[2]]);
    },
  },
  "select.like": {
    build: () => select(ConformanceJob, ["id"]).where({ consumer: op.like("bill%"), idempotencyKey: op.isNull(false) }),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ id: JOB_IDS[0] }]);
    },
  },
  "select.likeEscape": {
    build: () => select(ConformanceJob, ["consumer"]).where({ consumer: op.like("a\\_b\\%") }),
    check: async (engine, query) => {
      const rows = ["a_b%", "axb%", "a_bz", "A_B%"].map((consumer, i) => ({
        ...duplicateOfFirst,
        id: `30000000-0000-4000-8000-00000000000${i}`,
        consumer,
        idempotencyKey: null,
      }));
      await engine.execute(insert(ConformanceJob).values(rows)).rowsAffected();
      // A backslash escapes % and _ on every dialect; case sensitivity of LIKE itself is the dialect's.
      const found = ((await rowsOf(engine, query)) as { consumer: string }[]).map((r) => r.consumer);
      expect(found.filter((c) => c !== "A_B%")).toEqual(["a_b%"]);
    },
  },
  "select.ilike": {
    build: () => select(ConformanceJob, ["id"]).where({ consumer: op.ilike("MAIL") }),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ id: JOB_IDS[2] }]);
    },
  },
  "select.emptyIn": {
    build: () => select(ConformanceJob, ["id"]).where({ id: op.in([]) }),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([]);
    },
  },
  "select.emptyNotIn": {
    build: () => select(ConformanceJob, ["id"]).where({ id: op.notIn([]) }),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toHaveLength(3);
    },
  },
  "select.forUpdateSkipLocked": {
    build: () => claimable().forUpdate({ skipLocked: true }),
    check: async (engine, query) => {
      await engine.transaction(async (first) => {
        expect(idsOf((await first.execute(query).all()) as { id: string }[])).toEqual([JOB_IDS[0], JOB_IDS[1]]);
        // A second transaction on another connection skips the locked rows instead of waiting.
        const second = await engine.transaction(async (other) => other.execute(query).all());
        expect(second).toEqual([]);
      });
    },
  },
  "select.forUpdateNoWait": {
    build: () => claimable().forUpdate({ noWait: true }),
    check: async (engine, query) => {
      await engine.transaction(async (first) => {
        expect(await first.execute(query).all()).toHaveLength(2);
        const error = await engine.transaction(async (other) => other.execute(query).all()).catch((e: unknown) => e);
        expect(QueryError.isInstance(error)).toBe(true);
      });
    },
  },
  "select.forUpdateOf": {
    build: () => claimable().forUpdate({ of: [ConformanceJob.tablename] }),
    check: async (engine, query) => {
      expect(await engine.transaction(async (tx) => tx.execute(query).all())).toHaveLength(2);
    },
  },
  "select.forShare": {
    build: () => claimable().forShare(),
    check: async (engine, query) => {
      expect(await engine.transaction(async (tx) => tx.execute(query).all())).toHaveLength(2);
    },
  },
  "update.expressions": {
    build: () =>
      update(ConformanceJob)
        .set({ attempts: sql.raw("attempts + 1"), updatedAt: sql.now(), nextAttemptAt: sql.nowPlusSeconds(30) })
        .where({ id: JOB_IDS[0] }),
    check: async (engine, query) => {
      const before = Date.now();
      expect(await engine.execute(query).rowsAffected()).toBe(1);
      const row = await engine.execute(job(JOB_IDS[0])).one();
      expect(row.attempts).toBe(1);
      expect(Math.abs((row.updatedAt as Date).getTime() - before)).toBeLessThan(60_000);
      expect(row.nextAttemptAt.getTime() - (row.updatedAt as Date).getTime()).toBeGreaterThanOrEqual(29_000);
      expect(row.nextAttemptAt.getTime() - (row.updatedAt as Date).getTime()).toBeLessThanOrEqual(31_000);
    },
  },
  "update.template": {
    build: () =>
      update(ConformanceJob)
        .set({ attempts: sql.expr`attempts + ${5}` })
        .where({ id: JOB_IDS[1] }),
    check: async (engine, query) => {
      expect(await engine.execute(query).rowsAffected()).toBe(1);
      expect((await engine.execute(job(JOB_IDS[1])).one()).attempts).toBe(7);
    },
  },
  "update.returning": {
    build: () => update(ConformanceJob).set({ status: "sending" }).where({ id: JOB_IDS[1] }).returning(["id", "status"]),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ id: JOB_IDS[1], status: "sending" }]);
    },
  },
  "update.claimSubquery": {
    build: () =>
      update(ConformanceJob)
        .set({ status: "sending", attempts: sql.raw("attempts + 1"), updatedAt: sql.now() })
        .where({ id: op.in(claimable().limit(1).forUpdate({ skipLocked: true }).asSubquery("id")) })
        .returning(["id", "attempts"]),
    check: async (engine, query) => {
      expect(await engine.transaction(async (tx) => tx.execute(query).all())).toEqual([{ id: JOB_IDS[0], attempts: 1 }]);
    },
  },
  "update.claimSubqueryUnlocked": {
    build: () =>
      update(ConformanceJob)
        .set({ status: "sending" })
        .where({ id: op.in(claimable().limit(1).asSubquery("id")) }),
    check: async (engine, query) => {
      expect(await engine.transaction(async (tx) => tx.execute(query).rowsAffected())).toBe(1);
      expect((await engine.execute(job(JOB_IDS[0])).one()).status).toBe("sending");
    },
  },
  "insert.onConflictDoNothing": {
    build: () =>
      insert(ConformanceJob)
        .values(duplicateOfFirst)
        .onConflictDoNothing(["consumer", "idempotencyKey"], { where: { idempotencyKey: op.isNull(false) } }),
    check: async (engine, query) => {
      expect(await engine.execute(query).rowsAffected()).toBe(0);
      // Without a key nothing is deduplicated.
      const keyless = insert(ConformanceJob)
        .values({ ...duplicateOfFirst, idempotencyKey: null })
        .onConflictDoNothing(["consumer", "idempotencyKey"], { where: { idempotencyKey: op.isNull(false) } });
      expect(await engine.execute(keyless).rowsAffected()).toBe(1);
    },
  },
  "insert.onConflictDoUpdate": {
    build: () =>
      insert(ConformanceJob)
        .values(duplicateOfFirst)
        .onConflictDoUpdate(
          ["consumer", "idempotencyKey"],
          { status: "failed", nextAttemptAt: T1 },
          { indexWhere: { idempotencyKey: op.isNull(false) }, updateWhere: { attempts: op.lt(5) } },
        ),
    check: async (engine, query) => {
      await engine.execute(query).rowsAffected();
      expect(await engine.execute(job(JOB_IDS[0])).one()).toMatchObject({ status: "failed", nextAttemptAt: T1 });
      // updateWhere false: the row is left alone.
      await engine.execute(update(ConformanceJob).set({ attempts: 9, status: "queued" }).where({ id: JOB_IDS[0] })).rowsAffected();
      await engine.execute(query).rowsAffected();
      expect(await engine.execute(job(JOB_IDS[0])).one()).toMatchObject({ status: "queued", attempts: 9 });
      expect(await engine.execute(select(ConformanceJob, ["id"])).all()).toHaveLength(3);
    },
  },
  "insert.ignoreDuplicates": {
    build: () =>
      insert(ConformanceJob)
        .values({ ...duplicateOfFirst, id: JOB_IDS[0], idempotencyKey: "other" })
        .ignoreDuplicates(),
    check: async (engine, query) => {
      expect(await engine.execute(query).rowsAffected()).toBe(0);
      expect((await engine.execute(job(JOB_IDS[0])).one()).idempotencyKey).toBe("k1");
    },
  },
  "insert.onDuplicateKeyUpdate": {
    build: () =>
      insert(ConformanceJob)
        .values({ ...duplicateOfFirst, id: JOB_IDS[0] })
        .onDuplicateKeyUpdate({ status: "failed" }),
    check: async (engine, query) => {
      await engine.execute(query).rowsAffected();
      expect((await engine.execute(job(JOB_IDS[0])).one()).status).toBe("failed");
    },
  },
  "delete.where": {
    build: () => deleteFrom(ConformanceJob).where({ consumer: "mail" }),
    check: async (engine, query) => {
      expect(await engine.execute(query).rowsAffected()).toBe(1);
    },
  },
  "delete.returning": {
    build: () => deleteFrom(ConformanceJob).where({ status: "sent" }).returning(["id"]),
    check: async (engine, query) => {
      expect(await rowsOf(engine, query)).toEqual([{ id: JOB_IDS[2] }]);
    },
  },
  "ddl.createTable": { build: () => createTable(ConformanceJob) },
  "ddl.createIndex.idempotency": { build: () => createIndexes(ConformanceJob)[0] as Executable<never> },
  "ddl.createIndex.due": { build: () => createIndexes(ConformanceJob)[1] as Executable<never> },
  ...setCases,
} satisfies Record<string, ConformanceCase>;

export type ConformanceCaseId = keyof typeof conformanceCases;
