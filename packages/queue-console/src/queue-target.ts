import type { QueueOptions } from "@tempest-db-js/queue-recipes";
import { withQueueFeatures } from "@tempest-db-js/queue-recipes";
import type { Executor, ModelClass } from "tempest-db-js";
import { column, describeTable, Model, tableMeta, UnsupportedFeatureError } from "tempest-db-js";

/** What the console looks at: a database, the queue's model, and the options the recipes read it with. */
export interface QueueTarget {
  readonly db: Executor;
  readonly model: ModelClass<any>;
  readonly options?: QueueOptions;
}

/** The guide's `Outbound` model on a table of that name (snake_case columns). */
export function guideModel(tablename: string): ModelClass<any> {
  return class Outbound extends Model {
    static tablename = tablename;
    static naming = "snake_case";
    id = column.uuid().primaryKey();
    consumer = column.text().notNull();
    idempotencyKey = column.text();
    status = column.enum("queued", "sending", "sent", "failed").notNull();
    attempts = column.integer().notNull().default(0);
    nextAttemptAt = column.datetime().notNull();
    updatedAt = column.datetime();
  };
}

/**
 * The guide's model for an existing table, with each optional queue column (claim token, last error,
 * dead-letter, ...) the table has: the CLI's model when it is given a table name and no model file.
 * The optional columns are the ones `withQueueFeatures` declares, kept only where the table has them,
 * so the console turns on exactly the features the live table supports.
 */
export async function modelForTable(db: Executor, tablename: string): Promise<ModelClass<any>> {
  const base = guideModel(tablename);
  const full = withQueueFeatures(base);
  let present: Set<string>;
  try {
    const rows = await db.execute(describeTable(base)).all();
    present = new Set(rows.filter((r) => r.kind === "column").map((r) => r.name.toLowerCase()));
  } catch (error) {
    // A dialect without a catalog query: the guide's columns only.
    if (UnsupportedFeatureError.isInstance(error)) return base;
    throw error;
  }
  const columns = tableMeta(full).byField;
  const template = new full() as unknown as Record<string, unknown>;
  const fields = Object.keys(template).filter((field) => present.has(columns.get(field)?.name.toLowerCase() ?? ""));
  const Live = class extends Model {
    static tablename = tablename;
    static naming = "snake_case";
    constructor() {
      super();
      for (const field of fields) (this as unknown as Record<string, unknown>)[field] = template[field];
    }
  };
  Object.defineProperty(Live, "name", { value: "Outbound" });
  return Live;
}
