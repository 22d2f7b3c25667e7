import * as recipes from "@tempest-db-js/queue-recipes";
import type { ModelClass } from "tempest-db-js";
import * as tempest from "tempest-db-js";
import { column, Model } from "tempest-db-js";

/**
 * The packages a model is declared with: this checkout's by default, or another built checkout's
 * (see builds.ts), whose recipes only accept models of their own core.
 */
export interface Packages {
  readonly core: typeof tempest;
  readonly recipes: typeof recipes;
}

const thisCheckout: Packages = { core: tempest, recipes };

/** The guide's Outbound model on a table of its own, declared with `core`. */
function guideModel(tablename: string, core: Packages["core"]) {
  class Job extends core.Model {
    static tablename = tablename;
    static naming = "snake_case";

    id = core.column.uuid().primaryKey();
    consumer = core.column.text().notNull();
    idempotencyKey = core.column.text();
    status = core.column.enum("queued", "sending", "sent", "failed").notNull();
    attempts = core.column.integer().notNull().default(0);
    nextAttemptAt = core.column.datetime().notNull();
    updatedAt = core.column.datetime();
  }
  return Job;
}

/** The guide's Outbound model on a table of its own, with the indexes the queue recipes rely on. */
export function queueModel(tablename: string, packages: Packages = thisCheckout) {
  return packages.recipes.withQueueIndexes(guideModel(tablename, packages.core));
}

/** The guide's model with a priority column, and the queue's indexes (with `<table>_priority`). */
export function priorityQueueModel(tablename: string) {
  class PriorityJob extends guideModel(tablename, tempest) {
    priority = column.integer().notNull().default(0);
  }
  return recipes.withQueueIndexes(PriorityJob);
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
