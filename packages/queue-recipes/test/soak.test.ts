import type { Engine } from "tempest-db-js";
import { deleteFrom, op, select, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, enqueue, markSent, runRetention } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import { engineFor, targets } from "./support/targets.js";

/**
 * A soak at full speed with retention running (issue 28.4): a producer enqueues as fast as it can,
 * workers claim and settle as fast as they can, and `runRetention` purges settled messages older
 * than a few seconds. Quick by default (seconds, for CI: the figures are printed, only correctness
 * is asserted); TEMPEST_SOAK_MINUTES=30 runs it for real on PostgreSQL and asserts the claim p99 and
 * the table + index size of the last minute within 1.5× of the first minute's.
 * TEMPEST_SOAK_SETTLE=delete settles by deleting the row (fenced like markSent) instead of `sent`.
 */
const minutes = Number(process.env.TEMPEST_SOAK_MINUTES ?? 0);
const full = minutes > 0;
const durationMs = full ? minutes * 60_000 : 6_000;
/** The first and the last window compared (a minute each in the full run). */
const windowMs = full ? 60_000 : 2_000;
const settleMode = process.env.TEMPEST_SOAK_SETTLE === "delete" ? "delete" : "update";
const WORKERS = 4;
const BATCH = 50;

const postgres = targets.filter((t) => t.name === "PostgreSQL");

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

describe.each(postgres)("soak at full speed with retention on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, WORKERS + 4);
  });
  afterAll(async () => {
    await engine.close();
  });

  it(
    `keeps claims and the table's size steady (${full ? `${minutes} min` : "quick"}, settle by ${settleMode})`,
    async () => {
      const { Outbound } = await freshQueue(engine, "soak");
      const table = Outbound.tablename;
      // The autovacuum settings docs/queue-recipes.md recommends for a queue table.
      await engine
        .execute(
          sql.raw(
            `ALTER TABLE "${table}" SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 0, autovacuum_analyze_scale_factor = 0.02)`,
          ),
        )
        .rowsAffected();
      const size = async () =>
        Number(await engine.execute(sql.typed(sql.expr`SELECT pg_total_relation_size(${table}::regclass) AS n`, { n: "bigint" })).scalar());

      const stop = new AbortController();
      const started = performance.now();
      const claims: { at: number; ms: number }[] = [];
      const errors: unknown[] = [];
      let enqueued = 0;
      let settled = 0;

      const producer = (async () => {
        while (!stop.signal.aborted) {
          // Keep the backlog bounded so that the soak measures a steady state, not a growing queue.
          if (enqueued - settled > 20_000) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            continue;
          }
          const result = await enqueue(
            engine,
            Outbound,
            Array.from({ length: 200 }, () => ({ consumer: "soak" })),
            { notify: false },
          );
          enqueued += result.inserted.length; // (no await on this line: no lost update)
        }
      })().catch((error: unknown) => errors.push(error));

      const lane = async () => {
        while (!stop.signal.aborted) {
          const t0 = performance.now();
          const batch = await claimBatch(engine, Outbound, { size: BATCH });
          claims.push({ at: t0 - started, ms: performance.now() - t0 });
          if (batch.length === 0) continue;
          // (Read the count first: `settled += await ...` would read `settled` before the await and lose other lanes' counts.)
          if (settleMode === "update") {
            const { applied } = await markSent(engine, Outbound, batch);
            settled += applied;
          } else {
            // Delete-on-settle, fenced as markSent is: only rows still held by this claim.
            const ids = batch.map((m) => m.id);
            const deleted = await engine
              .execute(deleteFrom(Outbound).where({ id: op.in(ids), status: "sending", attempts: batch[0]?.attempts ?? 0 }))
              .rowsAffected();
            settled += deleted;
          }
        }
      };
      const lanes = Array.from({ length: WORKERS }, () => lane().catch((error: unknown) => errors.push(error)));
      let purged = 0;
      const retention =
        settleMode === "update"
          ? runRetention(engine, Outbound, {
              olderThanSeconds: full ? 60 : 1,
              batchSize: 1000,
              everySeconds: full ? 5 : 0.5,
              signal: stop.signal,
              onPurge: (n) => {
                purged += n;
              },
              onError: (error) => errors.push(error),
            })
          : Promise.resolve(0);

      await new Promise((resolve) => setTimeout(resolve, windowMs));
      const sizeFirst = await size();
      await new Promise((resolve) => setTimeout(resolve, durationMs - windowMs));
      const sizeLast = await size();
      stop.abort();
      await Promise.all([producer, ...lanes, retention]);

      const first = claims.filter((c) => c.at < windowMs).map((c) => c.ms);
      const last = claims.filter((c) => c.at >= durationMs - windowMs).map((c) => c.ms);
      const p99First = percentile(first, 99);
      const p99Last = percentile(last, 99);
      const report = {
        settle: settleMode,
        minutes: durationMs / 60_000,
        enqueued,
        settled,
        purged,
        claimsPerSecond: Math.round(claims.length / (durationMs / 1000)),
        settledPerSecond: Math.round(settled / (durationMs / 1000)),
        claimP99FirstMs: Number(p99First.toFixed(2)),
        claimP99LastMs: Number(p99Last.toFixed(2)),
        claimP50LastMs: Number(percentile(last, 50).toFixed(2)),
        sizeFirstMiB: Number((sizeFirst / 2 ** 20).toFixed(1)),
        sizeLastMiB: Number((sizeLast / 2 ** 20).toFixed(1)),
      };
      console.log(`soak: ${JSON.stringify(report)}`);

      expect(errors).toEqual([]);
      expect(settled).toBeGreaterThan(0);
      // Nothing settled twice, nothing lost: every message is settled, or still queued / held.
      const left = await engine.execute(select(Outbound, ["status"]).where({ status: op.in(["queued", "sending"]) })).all();
      expect(settled + left.length).toBe(enqueued);
      if (settleMode === "update") expect(purged).toBeGreaterThan(0);
      if (full) {
        expect(p99Last).toBeLessThanOrEqual(1.5 * p99First);
        expect(sizeLast).toBeLessThanOrEqual(1.5 * sizeFirst);
      }
    },
    durationMs + 120_000,
  );
});
