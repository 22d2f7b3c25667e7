import type { Engine } from "tempest-db-js";
import { createEngine } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue, work } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import { targets } from "./support/targets.js";

/**
 * Statements per enqueue, as the engine's query events count them: one event per query call on the
 * driver's connection (transaction control included). PostgreSQL sends the notification from the
 * INSERT's own statement: one round trip where INSERT then NOTIFY took two.
 */
const PER_ENQUEUE = { PostgreSQL: 1, MySQL: 1, SQLite: 1 } as const;

const waitFor = async (done: () => boolean) => {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 20));
};

describe.each(targets)("enqueue round trips on $name", (target) => {
  const statements: string[] = [];
  let engine: Engine;
  beforeAll(() => {
    engine = createEngine(target.url, { poolSize: 2, onQuery: (event) => statements.push(event.sql) });
  });
  afterAll(async () => {
    await engine.close();
  });

  it("sends one statement per enqueue of new messages, and notifies (PostgreSQL) only for rows inserted", async () => {
    const { Outbound } = await freshQueue(engine, "enqueue_trips");
    const notified: string[] = [];
    const unlisten = engine.capabilities.listenNotify
      ? await engine.listen("queue_qr_enqueue_trips", (payload) => notified.push(payload))
      : undefined;
    try {
      await enqueue(engine, Outbound, { consumer: "warm-up" }); // the idempotency index is checked once per engine and table
      await waitFor(() => !unlisten || notified.length === 1);
      notified.length = 0;

      statements.length = 0;
      const first = await enqueue(engine, Outbound, { consumer: "a", idempotencyKey: "k1" });
      expect(first.inserted).toHaveLength(1);
      expect(statements).toHaveLength(PER_ENQUEUE[target.name]);

      statements.length = 0;
      const batch = await enqueue(engine, Outbound, [{ consumer: "a", idempotencyKey: "k2" }, { consumer: "a" }]);
      expect(batch.inserted).toHaveLength(2);
      expect(statements).toHaveLength(PER_ENQUEUE[target.name]);

      // A duplicate inserts nothing: one more statement reads the id that holds its key, and nothing notifies.
      statements.length = 0;
      const again = await enqueue(engine, Outbound, { consumer: "a", idempotencyKey: "k1" });
      expect(again.duplicates.map((d) => d.id)).toEqual([first.inserted[0]?.id]);
      expect(statements).toHaveLength(PER_ENQUEUE[target.name] + 1);

      // In the caller's transaction the notification waits for its commit.
      await engine.transaction(async (tx) => {
        await enqueue(tx, Outbound, [{ consumer: "b" }, { consumer: "b" }, { consumer: "b", idempotencyKey: "k1" }]);
        await new Promise((r) => setTimeout(r, 100));
        if (unlisten) expect(notified).toEqual(["1", "2"]);
      });
      if (unlisten) {
        await waitFor(() => notified.length >= 3);
        await new Promise((r) => setTimeout(r, 50));
        // The payload is the number of rows the statement inserted; the duplicate sent none.
        expect(notified).toEqual(["1", "2", "3"]);
      }
    } finally {
      await unlisten?.();
    }
  });
});

describe.each(targets.filter((t) => t.name === "PostgreSQL"))("work() round trips on $name", (target) => {
  it("while listening, a wake-up for a short batch claims once and settles once: no claim that finds nothing", async () => {
    const statements: string[] = [];
    const engine = createEngine(target.url, { poolSize: 4, onQuery: (event) => statements.push(event.sql) });
    const stop = new AbortController();
    try {
      const { Outbound } = await freshQueue(engine, "work_trips");
      const delivered: string[] = [];
      const worker = work(engine, Outbound, (m) => void delivered.push(m.consumer), {
        signal: stop.signal,
        pollIntervalMs: 600_000,
        batchSize: 10,
      });
      await waitFor(() => statements.some((s) => s.includes('"status" = ')));
      await new Promise((r) => setTimeout(r, 200)); // the first (empty) round is over: idle on LISTEN
      await enqueue(engine, Outbound, { consumer: "warm-up" }); // the idempotency index is checked once per engine and table
      await waitFor(() => delivered.length === 1);
      await new Promise((r) => setTimeout(r, 100));
      for (const round of [1, 2, 3]) {
        statements.length = 0;
        await enqueue(engine, Outbound, [{ consumer: `r${round}` }, { consumer: `r${round}` }]);
        await waitFor(() => delivered.length === 1 + round * 2 && statements.length >= 3);
        await new Promise((r) => setTimeout(r, 100));
        const worker = statements.slice(1); // after the enqueue's one statement
        // The claim (its candidates locked with SKIP LOCKED), then the settlement: nothing else.
        expect(worker.map((s) => (s.includes("SKIP LOCKED") ? "claim" : s.split(" ")[0]))).toEqual(["claim", "UPDATE"]);
      }
      stop.abort();
      expect((await worker).sent).toBe(7);
    } finally {
      stop.abort();
      await engine.close();
    }
  });
});
