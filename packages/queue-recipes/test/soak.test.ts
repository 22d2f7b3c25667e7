import type { Engine } from "tempest-db-js";
import { op, select, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimBatch, enqueue, markSent, runRetention } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import { logLine, readTable } from "./support/soak-monitor.js";
import { engineFor, targets } from "./support/targets.js";
import { timeOrderedUuid } from "./support/time-ordered-uuid.js";

/**
 * A soak at full speed with retention running (issue 28.4): a producer enqueues as fast as it can,
 * workers claim and settle as fast as they can, and `runRetention` purges settled messages older
 * than a few seconds. Quick by default (seconds, for CI: the figures are printed, only correctness
 * is asserted); TEMPEST_SOAK_MINUTES=30 runs it for real on PostgreSQL and asserts the claim p99 and
 * the table + index size of the last minute within 1.5× of the first minute's.
 * TEMPEST_SOAK_SETTLE=delete settles with `onSent: "delete"` (delete-on-settle) instead of marking `sent`.
 * TEMPEST_SOAK_NAME names the table (`qr_<name>`, default `soak`: two soaks side by side need two
 * names); TEMPEST_SOAK_AUTOVACUUM=server leaves the server's autovacuum defaults on the table instead
 * of the ones docs/queue-recipes.md recommends, and =off turns autovacuum off for the table (what a
 * server with autovacuum off does to it); TEMPEST_SOAK_IDS=time gives each message a time-ordered
 * (version 7) UUID instead of leaving `enqueue` to generate a random one; TEMPEST_SOAK_RETAIN_SECONDS sets
 * how long retention keeps `sent` rows in the full run (default 60); TEMPEST_SOAK_LOG appends a JSON line per sample
 * (every 30 s in the full run: size, dead rows, vacuums, the oldest snapshot, the interval's claim p99).
 */
const minutes = Number(process.env.TEMPEST_SOAK_MINUTES ?? 0);
const full = minutes > 0;
const durationMs = full ? minutes * 60_000 : 6_000;
/** The first and the last window compared (a minute each in the full run). */
const windowMs = full ? 60_000 : 2_000;
const settleMode = process.env.TEMPEST_SOAK_SETTLE === "delete" ? "delete" : "update";
const sampleMs = full ? 30_000 : 1_000;
const tableName = process.env.TEMPEST_SOAK_NAME ?? "soak";
const autovacuum = (["server", "off"] as const).find((v) => v === process.env.TEMPEST_SOAK_AUTOVACUUM) ?? "queue";
const ids = process.env.TEMPEST_SOAK_IDS === "time" ? "time" : "random";
const retainSeconds = full ? Number(process.env.TEMPEST_SOAK_RETAIN_SECONDS ?? 60) : 1;
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
      // Without autovacuum nothing reclaims the dead rows every settlement and purge leaves: the full
      // run would measure that, not the queue (CI's server runs with autovacuum off).
      const vacuum = await engine.execute(sql.typed(sql.expr`SELECT current_setting('autovacuum') AS v`, { v: "text" })).scalar();
      if (full) expect(vacuum, "the full soak needs a server with autovacuum on").toBe("on");
      const { Outbound } = await freshQueue(engine, tableName);
      const table = Outbound.tablename;
      // The autovacuum settings docs/queue-recipes.md recommends for a queue table.
      const storage = {
        queue:
          "autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_cost_delay = 0, autovacuum_analyze_scale_factor = 0.02",
        off: "autovacuum_enabled = false",
        server: undefined,
      }[autovacuum];
      if (storage) await engine.execute(sql.raw(`ALTER TABLE "${table}" SET (${storage})`)).rowsAffected();
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
            Array.from({ length: 200 }, () => (ids === "time" ? { id: timeOrderedUuid(), consumer: "soak" } : { consumer: "soak" })),
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
          const { applied } = await markSent(engine, Outbound, batch, { onSent: settleMode === "delete" ? "delete" : "mark" });
          settled += applied;
        }
      };
      const lanes = Array.from({ length: WORKERS }, () => lane().catch((error: unknown) => errors.push(error)));
      let purged = 0;
      // Retention runs in both modes (after delete-on-settle it finds only dead-letter rows, none here).
      const retention = runRetention(engine, Outbound, {
        olderThanSeconds: retainSeconds,
        batchSize: 1000,
        everySeconds: full ? 5 : 0.5,
        signal: stop.signal,
        onPurge: (n) => {
          purged += n;
        },
        onError: (error) => errors.push(error),
      });
      const samples: { at: number; totalBytes: number }[] = [];
      let sampledClaims = 0;
      let sampledSettled = 0;
      const sampler = setInterval(() => {
        const at = performance.now() - started;
        const recent = claims.slice(sampledClaims).map((c) => c.ms);
        const settledNow = settled;
        const perSecond = Math.round(((settledNow - sampledSettled) * 1000) / sampleMs);
        sampledClaims = claims.length;
        sampledSettled = settledNow;
        readTable(engine, table).then(
          (reading) => {
            samples.push({ at, totalBytes: reading.totalBytes });
            logLine({
              table,
              settle: settleMode,
              autovacuum,
              ids,
              retainSeconds,
              atS: Math.round(at / 1000),
              claimP99Ms: Number(percentile(recent, 99).toFixed(1)),
              settledPerSecond: perSecond,
              ...reading,
            });
          },
          (error: unknown) => errors.push(error),
        );
      }, sampleMs);

      await new Promise((resolve) => setTimeout(resolve, windowMs));
      const sizeFirst = await size();
      await new Promise((resolve) => setTimeout(resolve, durationMs - windowMs));
      const sizeLast = await size();
      stop.abort();
      clearInterval(sampler);
      await Promise.all([producer, ...lanes, retention]);

      const first = claims.filter((c) => c.at < windowMs).map((c) => c.ms);
      const last = claims.filter((c) => c.at >= durationMs - windowMs).map((c) => c.ms);
      const p99First = percentile(first, 99);
      const p99Last = percentile(last, 99);
      const report = {
        settle: settleMode,
        ids,
        retainSeconds,
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
      logLine({ table, autovacuum, serverAutovacuum: vacuum, report });

      expect(errors).toEqual([]);
      expect(settled).toBeGreaterThan(0);
      // Nothing settled twice, nothing lost: every message is settled, or still queued / held.
      const left = await engine.execute(select(Outbound, ["status"]).where({ status: op.in(["queued", "sending"]) })).all();
      expect(settled + left.length).toBe(enqueued);
      if (settleMode === "update") expect(purged).toBeGreaterThan(0);
      else expect(purged).toBe(0);
      // The monitor read the table's statistics while the soak ran.
      expect(samples.length).toBeGreaterThan(0);
      if (full) {
        expect(p99Last).toBeLessThanOrEqual(1.5 * p99First);
        expect(sizeLast).toBeLessThanOrEqual(1.5 * sizeFirst);
      }
    },
    durationMs + 120_000,
  );
});
