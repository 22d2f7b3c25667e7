import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine } from "tempest-db-js";
import { createEngine, dropTable, insert } from "tempest-db-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { WorkerLife } from "../src/load-fleet.js";
import { Delivery, ensureLoadSchema, FULFILMENT, Order, Outbound, Receipt } from "../src/load-models.js";
import { verifyLoad } from "../src/load-verify.js";
import { PG_URL } from "../src/targets.js";

// The load run's checker must not be vacuous: each violation it exists for is built here from rows
// (on the shared server, in the load_* tables, which only this file uses there) and must be
// reported; a redelivery its worker's kill or error explains must not be.

let engine: Engine;
let dir: string;
const life = (id: string, extra: Partial<WorkerLife> = {}): WorkerLife => ({
  id,
  journal: join(dir, `${id}.jsonl`),
  killedAt: undefined,
  stopped: true,
  exit: "0",
  ...extra,
});

async function order(key: string, opts: { message?: boolean; status?: "sent" | "queued"; attempts?: number } = {}): Promise<string> {
  await engine
    .execute(insert(Order).values({ id: randomUUID(), idempotencyKey: key, item: "i", quantity: 1, createdAt: new Date() }))
    .rowsAffected();
  const id = randomUUID();
  if (opts.message === false) return id;
  await engine
    .execute(
      insert(Outbound).values({
        id,
        consumer: FULFILMENT,
        idempotencyKey: key,
        status: opts.status ?? "sent",
        attempts: opts.attempts ?? 1,
        nextAttemptAt: new Date(),
      }),
    )
    .rowsAffected();
  return id;
}

const deliver = (messageId: string, token: number, worker: string, atMs: number) =>
  engine.execute(insert(Delivery).values({ id: randomUUID(), messageId, token, worker, atMs })).rowsAffected();
const receive = (messageId: string) => engine.execute(insert(Receipt).values({ messageId, worker: "w0" })).rowsAffected();

async function dropAll() {
  for (const model of [Order, Outbound, Delivery, Receipt]) await engine.execute(dropTable(model, { ifExists: true })).rowsAffected();
}

beforeAll(async () => {
  await import("@tempest-db-js/dialect-postgres");
  engine = createEngine(PG_URL, { poolSize: 2 });
});
afterAll(async () => {
  await dropAll().catch(() => {});
  await engine?.close();
});
beforeEach(async () => {
  await dropAll();
  await ensureLoadSchema(engine);
  dir = mkdtempSync(join(tmpdir(), "tempest-load-verify-"));
  return () => rmSync(dir, { recursive: true, force: true });
});

describe("verifyLoad", () => {
  it("passes a clean run, with redeliveries a kill or a reported error explains", async () => {
    const a = await order("a", { attempts: 2 });
    const b = await order("b", { attempts: 2 });
    await deliver(a, 1, "w0", 1000); // w0 was SIGKILLed after delivering: claim 1 never settled
    await deliver(a, 2, "w1", 5000);
    await deliver(b, 1, "w1", 2000); // w1 reported an error after it (a lost settlement)
    await deliver(b, 2, "w1", 6000);
    await receive(a);
    await receive(b);
    writeFileSync(join(dir, "w1.jsonl"), `${JSON.stringify({ t: "error", at: 2500, message: "connection lost" })}\n`);
    const findings = await verifyLoad(engine, [life("w0", { killedAt: 1500, exit: "SIGKILL" }), life("w1")]);
    expect(findings.violations).toEqual([]);
    expect(findings).toMatchObject({ orders: 2, messages: 2, deliveries: 4, redeliveries: 2, unexplainedRedeliveries: 0 });
  });

  it("reports each broken invariant", async () => {
    await order("no-message", { message: false });
    await order("queued", { status: "queued" });
    const twice = await order("twice");
    const unexplained = await order("unexplained", { attempts: 2 });
    await deliver(twice, 1, "w0", 1000);
    await deliver(twice, 1, "w1", 1100); // one claim delivered by two workers
    await deliver(unexplained, 1, "w0", 2000); // w0 was never killed and saw no error after it
    await deliver(unexplained, 2, "w0", 3000);
    await receive(twice); // none for `queued` or `unexplained`
    const findings = await verifyLoad(engine, [life("w0"), life("w1")]);
    expect(findings.ordersWithoutMessage).toBe(1);
    expect(findings.notSent).toEqual({ queued: 1 });
    expect(findings.undelivered).toBe(1); // `queued`: no delivery by its completing claim
    expect(findings.withoutReceipt).toBe(2);
    expect(findings.claimsDeliveredTwice).toBe(1);
    expect(findings.unexplainedRedeliveries).toBe(1);
    expect(findings.violations.join("\n")).toMatch(/orders 4 vs messages 3/);
    expect(findings.violations.join("\n")).toMatch(new RegExp(`message ${unexplained} delivered by claim 1 of w0`));
  });
});
