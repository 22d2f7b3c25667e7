// PostgreSQL behind a real PgBouncer in transaction mode (the version apt installs: 1.18 on this
// Debian). The pooler is PostgreSQL's, so this file runs on PostgreSQL only.
import { createEngine, dropTable, op, select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drain, enqueue, ensureQueueSchema, work } from "../src/index.js";
import { outboundModel } from "./support/models.js";
import type { PgBouncer } from "./support/pgbouncer.js";
import { startPgBouncer } from "./support/pgbouncer.js";
import "@tempest-db-js/dialect-postgres";

const upstream = process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";

describe("PostgreSQL through PgBouncer in transaction mode", () => {
  let bouncer: PgBouncer;
  beforeAll(async () => {
    bouncer = await startPgBouncer(upstream, 2);
  });
  afterAll(async () => {
    await bouncer?.stop();
  });

  async function queue(name: string, messages: number) {
    const direct = createEngine(upstream, { poolSize: 1 });
    const Outbound = outboundModel(`qr_${name}`);
    try {
      await direct.execute(dropTable(Outbound, { ifExists: true })).rowsAffected();
      await ensureQueueSchema(direct, Outbound);
      await enqueue(
        direct,
        Outbound,
        Array.from({ length: messages }, (_, i) => ({ consumer: `c${i % 5}` })),
        { notify: false },
      );
    } finally {
      await direct.close();
    }
    return Outbound;
  }

  it("with pooler: 'transaction', drains everything: no prepared statement, no row left sending", async () => {
    const Outbound = await queue("bouncer_pooler", 400);
    const engine = createEngine(bouncer.url, { poolSize: 6, driver: { pooler: "transaction" } });
    try {
      const result = await drain(engine, Outbound, async () => undefined, { batchSize: 5, concurrency: 6 });
      expect(result).toMatchObject({ sent: 400, retried: 0, failed: 0, stale: 0 });
      const statuses = await engine.execute(select(Outbound, ["status"]).where({ status: op.in(["queued", "sending", "failed"]) })).all();
      expect(statuses).toEqual([]);
    } finally {
      await engine.close();
    }
  });

  it("work() warns that LISTEN cannot work through the pooler and polls instead", async () => {
    const Outbound = await queue("bouncer_listen", 0);
    const engine = createEngine(bouncer.url, { poolSize: 2, driver: { pooler: "transaction" } });
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => {
      if (warning.code === "TEMPEST_QUEUE_NO_LISTEN") warnings.push(warning.message);
    };
    process.on("warning", onWarning);
    const stop = new AbortController();
    try {
      const errors: unknown[] = [];
      const delivered: string[] = [];
      const running = work(
        engine,
        Outbound,
        (message) => {
          delivered.push(message.consumer);
          stop.abort();
        },
        { signal: stop.signal, pollIntervalMs: 100, onError: (e) => errors.push(e) },
      );
      await enqueue(engine, Outbound, { consumer: "late" });
      const totals = await running;
      expect(totals.sent).toBe(1);
      expect(delivered).toEqual(["late"]);
      expect(errors).toHaveLength(1); // the refused LISTEN, once: it is not retried
      expect(String(errors[0])).toMatch(/LISTEN through a pooler in transaction mode/);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/polling every 100 ms/);
    } finally {
      process.off("warning", onWarning);
      await engine.close();
    }
  });

  it("with listenUrl, LISTEN goes straight to the server and wakes the worker", async () => {
    const Outbound = await queue("bouncer_listenurl", 0);
    const engine = createEngine(bouncer.url, { poolSize: 2, driver: { pooler: "transaction", listenUrl: upstream } });
    const stop = new AbortController();
    try {
      const running = work(engine, Outbound, () => void stop.abort(), {
        signal: stop.signal,
        // Polling would take a minute: only the notification can wake the loop in time.
        pollIntervalMs: 60_000,
        onProgress: () => {},
        onError: (e) => {
          throw e;
        },
      });
      // Let the loop subscribe and go idle, then enqueue through the pooler (NOTIFY works there).
      await new Promise((resolve) => setTimeout(resolve, 500));
      await enqueue(engine, Outbound, { consumer: "wake" });
      const totals = await running;
      expect(totals.sent).toBe(1);
    } finally {
      await engine.close();
    }
  });
});

describe("the pooler option", () => {
  it("is checked by createEngine", () => {
    expect(() => createEngine(upstream, { driver: { pooler: "session" } })).toThrow(/pooler must be "transaction"/);
    expect(() => createEngine(upstream, { driver: { pooler: "transaction", listenUrl: "" } })).toThrow(/listenUrl/);
  });
});
