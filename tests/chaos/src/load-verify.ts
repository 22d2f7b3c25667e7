// The invariants of a load run, read from the private server once the queue is drained and the
// workers stopped, and from the workers' journals and lives:
// - orders and outbox messages match one to one by idempotency key, no key twice on either side;
// - every message is `sent`, delivered by the claim that completed it (a delivery with its final
//   `attempts` as token), and has exactly one receipt (the consumer's effect);
// - no claim delivered twice (two deliveries with one token);
// - a redelivery (a delivery by an earlier claim) is at least once delivery, as the recipes document
//   it, and allowed only where that claim can have been left unsettled: its worker was SIGKILLed
//   after the delivery, or reported an error after it (a lost settlement, a commit whose answer never
//   came). Any other is an unexplained duplicate — the criterion of the chaos run's analyze.ts.

import { existsSync, readFileSync } from "node:fs";
import type { Engine } from "tempest-db-js";
import { select, sql } from "tempest-db-js";
import type { WorkerLife } from "./load-fleet.js";
import { Delivery, FULFILMENT, Order, Outbound, Receipt } from "./load-models.js";
import type { WorkerJournalEntry } from "./load-worker-config.js";

export interface LoadFindings {
  readonly orders: number;
  readonly messages: number;
  readonly ordersWithoutMessage: number;
  readonly messagesWithoutOrder: number;
  readonly notSent: Readonly<Record<string, number>>;
  readonly deliveries: number;
  readonly undelivered: number;
  readonly receipts: number;
  readonly withoutReceipt: number;
  readonly claimsDeliveredTwice: number;
  readonly redeliveries: number;
  readonly unexplainedRedeliveries: number;
  /** Deliveries whose signal aborted, by reason ("lease-lost", "timeout", "stopping"), from the journals. */
  readonly cutOff: Readonly<Record<string, number>>;
  /** Errors the workers' loops reported (lost connections during restarts, mostly). */
  readonly workerErrors: number;
  readonly violations: string[];
}

const count = async (engine: Engine, query: string) => Number(await engine.execute(sql.raw(query)).scalar());

export async function verifyLoad(engine: Engine, lives: readonly WorkerLife[]): Promise<LoadFindings> {
  const violations: string[] = [];
  const orders = await count(engine, `SELECT COUNT(*) FROM load_orders`);
  const messages = await count(engine, `SELECT COUNT(*) FROM load_outbound WHERE consumer = '${FULFILMENT}'`);
  const ordersWithoutMessage = await count(
    engine,
    `SELECT COUNT(*) FROM load_orders o WHERE NOT EXISTS (SELECT 1 FROM load_outbound m WHERE m.idempotency_key = o.idempotency_key AND m.consumer = '${FULFILMENT}')`,
  );
  const messagesWithoutOrder = await count(
    engine,
    `SELECT COUNT(*) FROM load_outbound m WHERE NOT EXISTS (SELECT 1 FROM load_orders o WHERE o.idempotency_key = m.idempotency_key)`,
  );
  const keysTwice = await count(
    engine,
    `SELECT COUNT(*) FROM (SELECT idempotency_key FROM load_outbound GROUP BY idempotency_key HAVING COUNT(*) > 1) k`,
  );
  if (orders !== messages || ordersWithoutMessage > 0 || messagesWithoutOrder > 0 || keysTwice > 0) {
    violations.push(
      `orders ${orders} vs messages ${messages}: ${ordersWithoutMessage} orders without a message, ${messagesWithoutOrder} messages without an order, ${keysTwice} keys with two messages`,
    );
  }

  const notSent: Record<string, number> = {};
  for (const row of await engine.execute(select(Outbound, ["status"]).where({ status: { ne: "sent" } })).all()) {
    notSent[row.status] = (notSent[row.status] ?? 0) + 1;
  }
  if (Object.keys(notSent).length > 0) violations.push(`messages not sent: ${JSON.stringify(notSent)}`);

  const final = new Map((await engine.execute(select(Outbound, ["id", "attempts"])).all()).map((r) => [r.id, r.attempts]));
  const deliveries = await engine.execute(select(Delivery)).all();
  const receipts = await count(engine, `SELECT COUNT(*) FROM ${Receipt.tablename}`);
  const withoutReceipt = await count(
    engine,
    `SELECT COUNT(*) FROM load_outbound m WHERE NOT EXISTS (SELECT 1 FROM load_receipts r WHERE r.message_id = m.id)`,
  );
  if (withoutReceipt > 0 || receipts !== messages)
    violations.push(`${receipts} receipts for ${messages} messages, ${withoutReceipt} without one`);

  const completing = new Set<string>();
  const perClaim = new Map<string, number>();
  for (const d of deliveries) {
    if (final.get(d.messageId) === d.token) completing.add(d.messageId);
    const claim = `${d.messageId}:${d.token}`;
    perClaim.set(claim, (perClaim.get(claim) ?? 0) + 1);
  }
  const undelivered = [...final.keys()].filter((id) => !completing.has(id)).length;
  if (undelivered > 0) violations.push(`${undelivered} messages without a delivery by the claim that completed them`);
  const claimsDeliveredTwice = [...perClaim.values()].filter((n) => n > 1).length;
  if (claimsDeliveredTwice > 0) violations.push(`${claimsDeliveredTwice} claims delivered twice`);

  // Redeliveries: deliveries by a claim that did not complete its message.
  const journals = new Map(lives.map((l) => [l.id, journalOf(l.journal)]));
  const errorsOf = new Map([...journals].map(([id, entries]) => [id, entries.map((e) => e.at)]));
  const cutOff: Record<string, number> = {};
  let workerErrors = 0;
  for (const entries of journals.values()) {
    for (const e of entries) {
      if (e.t === "aborted") {
        const reason = e.message.slice(0, e.message.indexOf(":"));
        cutOff[reason] = (cutOff[reason] ?? 0) + 1;
      } else workerErrors++;
    }
  }
  const killedAt = new Map(lives.map((l) => [l.id, l.killedAt]));
  let redeliveries = 0;
  let unexplainedRedeliveries = 0;
  for (const d of deliveries) {
    if (final.get(d.messageId) === d.token) continue;
    redeliveries++;
    const killed = killedAt.get(d.worker);
    const explained = (killed !== undefined && killed >= d.atMs) || (errorsOf.get(d.worker) ?? []).some((at) => at >= d.atMs);
    if (!explained) {
      unexplainedRedeliveries++;
      if (unexplainedRedeliveries <= 5)
        violations.push(
          `message ${d.messageId} delivered by claim ${d.token} of ${d.worker}, never settled, no kill or error to explain it`,
        );
    }
  }
  if (unexplainedRedeliveries > 5) violations.push(`… ${unexplainedRedeliveries} unexplained redeliveries in all`);

  return {
    orders,
    messages,
    ordersWithoutMessage,
    messagesWithoutOrder,
    notSent,
    deliveries: deliveries.length,
    undelivered,
    receipts,
    withoutReceipt,
    claimsDeliveredTwice,
    redeliveries,
    unexplainedRedeliveries,
    cutOff,
    workerErrors,
    violations,
  };
}

function journalOf(path: string): WorkerJournalEntry[] {
  if (!existsSync(path)) return [];
  const entries: WorkerJournalEntry[] = [];
  for (const line of readFileSync(path, "utf8").split("\n")) {
    try {
      entries.push(JSON.parse(line) as WorkerJournalEntry);
    } catch {
      // the empty last line, or one a SIGKILL cut short
    }
  }
  return entries;
}

/** Orders by key, for the final request check. */
export async function orderCount(engine: Engine, key: string): Promise<number> {
  return (await engine.execute(select(Order, ["id"]).where({ idempotencyKey: key })).all()).length;
}
