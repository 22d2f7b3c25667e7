import { drain } from "@tempest-db-js/queue-recipes";
import type pg from "pg";
import { createEngine } from "tempest-db-js";
import { PG_URL } from "../lib/env.js";
import { idsByAttempts } from "../lib/ids-by-attempts.js";
import { queueModel } from "../lib/models.js";
import { DRAIN, loadPostgresJobs, rawPostgresSql } from "./queue-drain-postgres.js";

/**
 * The cycle section's statements with delete-on-settle (`onSent: "delete"`): the settlement deletes
 * the delivered rows (fenced by status and token) instead of marking them `sent`. The claim is the
 * same as the default mode's.
 */
const noop = (_job?: unknown) => {};
const COLUMNS = `"id", "consumer", "idempotency_key", "status", "attempts", "next_attempt_at", "updated_at"`;
const CLAIM_FIRST = ` WHERE (EXISTS (SELECT COUNT(*) AS "k" FROM "tempest_claimed"))`;

/**
 * Runs `query` again when PostgreSQL chose it as a deadlock victim (40P01), as the recipes'
 * `retryStatement` does: a claim's `FOR UPDATE` that follows a row's update chain waits for the
 * transaction deleting (or updating) the newest version even under SKIP LOCKED, and two fused
 * statements can wait on each other that way. The statement rolled back as a whole; running it again
 * is what a worker does.
 */
export async function retryDeadlock<T>(query: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await query();
    } catch (error) {
      if ((error as { code?: string }).code !== "40P01" || attempt >= 10) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** Math.min(attempt, 6)));
    }
  }
}

/** The two-statement cycle's settlement with `onSent: "delete"`, as `markSent` sends it. */
export function rawDeleteSettleSql(table: string): string {
  return `DELETE FROM "${table}" WHERE "id" = ANY($1) AND "status" = $2 AND "attempts" = $3`;
}

/** The fused statement with `onSent: "delete"` (settle by deleting, claim the next), written by hand. */
export function rawFusedDeleteSql(table: string): string {
  const t = `"${table}"`;
  return (
    `WITH "tempest_settled" AS (DELETE FROM ${t} WHERE "status" = $1 AND ("id" = ANY($2) AND "attempts" = $3) RETURNING "id"), ` +
    `"tempest_settled_count" AS (SELECT COUNT(*) AS "n" FROM "tempest_settled"), ` +
    `"tempest_claimed" AS (UPDATE ${t} SET "status" = $4, "attempts" = "attempts" + 1, "updated_at" = now() WHERE "id" = ANY(ARRAY(SELECT "id" FROM ${t} WHERE "status" = $5 AND "next_attempt_at" <= (now() + make_interval(secs => $6)) ORDER BY "next_attempt_at" ASC LIMIT ${DRAIN.batch} FOR UPDATE SKIP LOCKED)) RETURNING ${COLUMNS}) ` +
    `SELECT "s"."n", ${COLUMNS.split(", ")
      .map((c) => `"c".${c}`)
      .join(", ")} FROM "tempest_settled_count" AS "s" LEFT JOIN "tempest_claimed" AS "c" ON "c"."id" IS NOT NULL${CLAIM_FIRST}`
  );
}

/** Two round trips per batch, named prepared statements: claim, then delete the delivered rows. */
export async function rawPgDeleteDrain(pool: pg.Pool, table: string): Promise<void> {
  const claim = rawPostgresSql(table).claim;
  const settle = rawDeleteSettleSql(table);
  const lane = async () => {
    for (;;) {
      const { rows } = await retryDeadlock(() => pool.query({ name: `claim_${table}`, text: claim, values: ["sending", "queued", 0.001] }));
      if (rows.length === 0) return;
      await Promise.all(rows.map(async (row) => noop(row)));
      const byAttempts = idsByAttempts(rows);
      for (const [attempts, ids] of byAttempts)
        await retryDeadlock(() => pool.query({ name: `delete_${table}`, text: settle, values: [ids, "sending", attempts] }));
    }
  };
  await Promise.all(Array.from({ length: DRAIN.workers }, lane));
}

/** One round trip per batch, named prepared statements: the fused delete statement by hand. */
export async function rawFusedDelete(pool: pg.Pool, table: string): Promise<void> {
  const claim = rawPostgresSql(table).claim;
  const fused = rawFusedDeleteSql(table);
  const lane = async () => {
    let { rows } = await retryDeadlock(() => pool.query({ name: `claim_${table}`, text: claim, values: ["sending", "queued", 0.001] }));
    while (rows.length > 0) {
      await Promise.all(rows.map(async (row) => noop(row)));
      if (new Set(rows.map((r) => r.attempts)).size !== 1) throw new Error("rawFusedDelete: one token per batch expected in this bench");
      const values = ["sending", rows.map((r) => r.id), rows[0].attempts, "sending", "queued", 0.001];
      const result = await retryDeadlock(() => pool.query({ name: `fused_delete_${table}`, text: fused, values }));
      if (Number(result.rows[0]?.n) !== rows.length) throw new Error("rawFusedDelete: a settlement went stale");
      rows = result.rows.filter((r) => r.id !== null);
    }
  };
  await Promise.all(Array.from({ length: DRAIN.workers }, lane));
}

/** Checks that the hand-written delete SQL (two-statement and fused) is what the recipes send. */
export async function assertSameDeleteSql(table: string, admin: pg.Pool): Promise<void> {
  const Job = queueModel(table);
  for (const fused of [false, true]) {
    const seen: string[] = [];
    const spy = createEngine(PG_URL, { poolSize: 1, onQuery: (e) => seen.push(e.sql) });
    try {
      await loadPostgresJobs(admin, table, DRAIN.batch * 2);
      await drain(spy, Job, noop, { batchSize: DRAIN.batch, concurrency: 1, fused, onSent: "delete" });
    } finally {
      await spy.close();
    }
    const expected = fused ? rawFusedDeleteSql(table) : rawDeleteSettleSql(table);
    if (!seen.includes(expected)) throw new Error(`raw delete SQL differs from the recipes':\n${seen.join("\n")}`);
  }
}

/** Rows left in `table`: with delete-on-settle, a drained job leaves none. */
export async function countRows(admin: pg.Pool, table: string): Promise<number> {
  const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${table}"`);
  return rows[0].n as number;
}

/**
 * pgbench scripts for delete-on-settle, as `pgbenchScripts` in cycle-postgres.ts: the two-statement
 * cycle (claim; delete the ids it returned) and the fused delete statement. `inline` writes the values in.
 */
export function pgbenchDeleteScripts(table: string, inline: (text: string, values: readonly string[]) => string) {
  const claim = inline(rawPostgresSql(table).claim, ["'sending'", "'queued'", "0.001"]);
  const settle = inline(rawDeleteSettleSql(table), [":ids::uuid[]", "'sending'", ":att"]);
  const fused = inline(rawFusedDeleteSql(table), ["'sending'", ":ids::uuid[]", ":att", "'sending'", "'queued'", "0.001"]);
  const fusedWith = fused.slice(0, fused.indexOf(' SELECT "s"."n"'));
  return {
    twoDelete: `WITH "c" AS (${claim}) SELECT coalesce(array_agg("id"), '{}') AS ids, coalesce(min("attempts"), 0) AS att FROM "c" \\gset\n${settle};\n`,
    fusedDelete: `${fusedWith} SELECT coalesce(array_agg("c"."id") FILTER (WHERE "c"."id" IS NOT NULL), '{}') AS ids, coalesce(min("c"."attempts"), 0) AS att FROM "tempest_settled_count" AS "s" LEFT JOIN "tempest_claimed" AS "c" ON "c"."id" IS NOT NULL${CLAIM_FIRST} \\gset\n`,
  };
}
