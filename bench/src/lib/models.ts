import { withQueueIndexes } from "@tempest-db-js/queue-recipes";
import type { ModelClass } from "tempest-db-js";
import { column, Model } from "tempest-db-js";

/** The guide's Outbound model on a table of its own, with the indexes the queue recipes rely on. */
export function queueModel(tablename: string) {
  class Job extends Model {
    static tablename = tablename;
    static naming = "snake_case";

    id = column.uuid().primaryKey();
    consumer = column.text().notNull();
    idempotencyKey = column.text();
    status = column.enum("queued", "sending", "sent", "failed").notNull();
    attempts = column.integer().notNull().default(0);
    nextAttemptAt = column.datetime().notNull();
    updatedAt = column.datetime();
  }
  return withQueueIndexes(Job);
}

export type QueueModel = ReturnType<typeof queueModel>;

/** The guide's model as written, for the build + compile benchmark. */
export class Outbound extends Model {
  static tablename = "outbound_messages";
  static naming = "snake_case";

  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}

/** A plain table for the SQLite CRUD benchmark: types every library reads back unchanged. */
export class Item extends Model {
  static tablename = "bench_items";

  id = column.integer().primaryKey();
  name = column.text().notNull();
  category = column.text().notNull();
  qty = column.integer().notNull();
  price = column.real().notNull();
}

export type AnyModel = ModelClass;
