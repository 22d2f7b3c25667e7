// The tables of the load test, all on its private PostgreSQL server: the service's orders, the outbox
// (the guide's model, through the recipes), and the consumer's side — one row per delivery, so a
// redelivery is visible, and one receipt per message, the consumer's idempotent effect.

import { ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import type { Engine } from "tempest-db-js";
import { column, createTable, Model } from "tempest-db-js";
import { jobModel } from "./models.js";

/** The consumer of every order's message. */
export const FULFILMENT = "fulfilment";

export class Order extends Model {
  static tablename = "load_orders";
  static naming = "snake_case";

  id = column.uuid().primaryKey();
  idempotencyKey = column.text().notNull().unique();
  item = column.text().notNull();
  quantity = column.integer().notNull();
  createdAt = column.datetime().notNull();
}

export const Outbound = jobModel("load_outbound");

/** One row per delivery: the message, the claim's token (`attempts` at the claim), the worker, when. */
export class Delivery extends Model {
  static tablename = "load_deliveries";
  static naming = "snake_case";

  id = column.uuid().primaryKey();
  messageId = column.uuid().notNull();
  token = column.integer().notNull();
  worker = column.text().notNull();
  /** Epoch ms on the worker's clock (the same machine as the driver's). */
  atMs = column.real().notNull();
}

/** The consumer's effect: at most one per message, however often it is delivered. */
export class Receipt extends Model {
  static tablename = "load_receipts";
  static naming = "snake_case";

  messageId = column.uuid().primaryKey();
  worker = column.text().notNull();
}

export async function ensureLoadSchema(engine: Engine): Promise<void> {
  for (const model of [Order, Delivery, Receipt]) await engine.execute(createTable(model, { ifNotExists: true })).rowsAffected();
  await ensureQueueSchema(engine, Outbound);
}
