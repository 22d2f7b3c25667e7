import { randomUUID } from "node:crypto";
import type { Engine } from "tempest-db-js";
import { insert, sql, update } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumerDepth, failingConsumers, inFlight, listMessages, oldestDue, queueDepth, showMessage, throughput } from "../src/index.js";
import { freshQueue, freshTokenQueue } from "./support/fresh-queue.js";
import { engineFor, targets } from "./support/targets.js";

type Status = "queued" | "sending" | "sent" | "failed";

describe.each(targets)("queue metrics on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 2);
  });
  afterAll(async () => {
    await engine.close();
  });

  /** Rows of a status for a consumer, placed `secondsAgo` in the past by the database's clock. */
  async function put(model: any, rows: { consumer: string; status: Status; secondsAgo: number; dueIn?: number; error?: string }[]) {
    const ids: string[] = [];
    for (const row of rows) {
      const id = randomUUID();
      ids.push(id);
      await engine
        .execute(
          insert(model).values({
            id,
            consumer: row.consumer,
            status: row.status,
            attempts: row.status === "failed" ? 5 : 1,
            nextAttemptAt: sql.nowPlusSeconds(row.dueIn ?? -row.secondsAgo),
            updatedAt: sql.nowPlusSeconds(-row.secondsAgo),
            ...(row.error === undefined ? {} : { lastError: row.error }),
          }),
        )
        .rowsAffected();
    }
    return ids;
  }

  it("counts by status, due, per consumer, in flight and per minute, by the database's clock", async () => {
    const { Outbound } = await freshQueue(engine, "metrics");
    expect(await queueDepth(engine, Outbound)).toEqual({ queued: 0, due: 0, sending: 0, failed: 0 });
    const idle = await oldestDue(engine, Outbound);
    expect(idle).toEqual({ dueAt: null, ageSeconds: null, now: expect.any(Date) });
    expect(await throughput(engine, Outbound, { minutes: 3 })).toEqual([
      { minutesAgo: 0, sent: 0, failed: 0 },
      { minutesAgo: 1, sent: 0, failed: 0 },
      { minutesAgo: 2, sent: 0, failed: 0 },
    ]);

    const putStarted = performance.now();
    await put(Outbound, [
      { consumer: "mail", status: "queued", secondsAgo: 300 },
      { consumer: "mail", status: "queued", secondsAgo: 10 },
      { consumer: "mail", status: "queued", secondsAgo: 0, dueIn: 3600 },
      { consumer: "sms", status: "queued", secondsAgo: 30 },
      { consumer: "sms", status: "sending", secondsAgo: 20 },
      { consumer: "mail", status: "sending", secondsAgo: 50 },
      { consumer: "mail", status: "sent", secondsAgo: 15 },
      { consumer: "mail", status: "sent", secondsAgo: 45 },
      { consumer: "sms", status: "sent", secondsAgo: 75 },
      { consumer: "sms", status: "sent", secondsAgo: 500 },
      { consumer: "sms", status: "failed", secondsAgo: 100 },
      { consumer: "hook", status: "failed", secondsAgo: 5 },
      { consumer: "hook", status: "failed", secondsAgo: 130 },
    ]);

    expect(await queueDepth(engine, Outbound)).toEqual({ queued: 4, due: 3, sending: 2, failed: 3 });
    const behind = await oldestDue(engine, Outbound);
    // 300 s when it was written, plus however long the inserts and the depth query took since (seconds
    // under heavy load); half a second either way for the column's precision.
    const sincePut = (performance.now() - putStarted) / 1000;
    expect(behind.ageSeconds).toBeGreaterThan(299.5);
    expect(behind.ageSeconds).toBeLessThan(300.5 + sincePut);
    const oldest = behind.dueAt;

    expect(await consumerDepth(engine, Outbound)).toEqual(
      [
        { consumer: "mail", queued: 3, sending: 1, failed: 0, nextAttemptAt: oldest },
        { consumer: "hook", queued: 0, sending: 0, failed: 2, nextAttemptAt: null },
        { consumer: "sms", queued: 1, sending: 1, failed: 1, nextAttemptAt: expect.any(Date) },
      ].sort((a, b) => b.queued + b.sending + b.failed - (a.queued + a.sending + a.failed) || a.consumer.localeCompare(b.consumer)),
    );
    expect(await consumerDepth(engine, Outbound, { limit: 1 })).toHaveLength(1);

    const claims = await inFlight(engine, Outbound);
    expect(claims.map((c) => c.consumer)).toEqual(["mail", "sms"]);
    expect(claims[0]?.attempts).toBe(1);
    expect(claims[0]?.claimedAt).toBeInstanceOf(Date);

    expect(await throughput(engine, Outbound, { minutes: 3 })).toEqual([
      { minutesAgo: 0, sent: 2, failed: 1 },
      { minutesAgo: 1, sent: 1, failed: 1 },
      { minutesAgo: 2, sent: 0, failed: 1 },
    ]);

    // No lastError column: the consumers still come back, their error null.
    expect(await failingConsumers(engine, Outbound)).toEqual([
      { consumer: "hook", failed: 2, lastFailedAt: expect.any(Date), lastError: null },
      { consumer: "sms", failed: 1, lastFailedAt: expect.any(Date), lastError: null },
    ]);
    expect(await failingConsumers(engine, Outbound, { sinceSeconds: 60 })).toEqual([
      { consumer: "hook", failed: 1, lastFailedAt: expect.any(Date), lastError: null },
    ]);
  });

  it("lists a status a page at a time, shows one message, and keeps request values as values", async () => {
    const { Outbound } = await freshTokenQueue(engine, "metrics_list");
    const ids = await put(Outbound, [
      { consumer: "hook", status: "failed", secondsAgo: 30, error: "HTTP 500" },
      { consumer: "hook", status: "failed", secondsAgo: 20, error: "HTTP 503" },
      { consumer: "hook", status: "failed", secondsAgo: 10, error: "timeout" },
      { consumer: "mail", status: "failed", secondsAgo: 40, error: "bounced" },
      { consumer: "mail", status: "sent", secondsAgo: 5 },
    ]);
    const failing = await failingConsumers(engine, Outbound);
    expect(failing.map(({ consumer, failed, lastError }) => ({ consumer, failed, lastError }))).toEqual([
      { consumer: "hook", failed: 3, lastError: "timeout" },
      { consumer: "mail", failed: 1, lastError: "bounced" },
    ]);

    const first = await listMessages(engine, Outbound, { status: "failed", limit: 2 });
    expect(first.map((m) => m.lastError)).toEqual(["timeout", "HTTP 503"]);
    const last = first[1] as (typeof first)[number];
    const second = await listMessages(engine, Outbound, {
      status: "failed",
      limit: 2,
      after: { updatedAt: last.updatedAt as Date, id: last.id },
    });
    expect(second.map((m) => m.lastError)).toEqual(["HTTP 500", "bounced"]);
    expect((await listMessages(engine, Outbound, { status: "failed", consumer: "mail" })).map((m) => m.id)).toEqual([ids[3]]);
    expect(await listMessages(engine, Outbound, { status: "failed", consumer: "' OR '1'='1" })).toEqual([]);
    await expect(listMessages(engine, Outbound, { status: "gone" as never })).rejects.toThrow(/status must be one of/);
    await expect(listMessages(engine, Outbound, { limit: 0 })).rejects.toThrow(/limit/);

    expect((await showMessage(engine, Outbound, ids[0]))?.lastError).toBe("HTTP 500");
    expect(await showMessage(engine, Outbound, randomUUID())).toBeNull();
    await engine.execute(update(Outbound).set({ status: "sent" }).where({ consumer: "hook" })).rowsAffected();
    expect((await failingConsumers(engine, Outbound)).map((c) => c.consumer)).toEqual(["mail"]);
  });
});
