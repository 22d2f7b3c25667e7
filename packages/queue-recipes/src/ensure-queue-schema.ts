import type { Executor, Index, ModelClass } from "tempest-db-js";
import { createIndexes, createTable } from "tempest-db-js";
import { queueIndexes } from "./queue-indexes.js";
import type { QueueOptions } from "./queue-options.js";

/**
 * The model with the queue's indexes added to the ones it declares. It is a subclass with the same
 * table and columns, so the guide's model works as written, without a `static indexes` of its own;
 * and because the indexes are part of the table description, a dialect that sizes indexed columns
 * differently (MySQL cannot index TEXT) sees them when writing CREATE TABLE.
 */
export function withQueueIndexes<M extends ModelClass<any>>(model: M, options: QueueOptions = {}): M {
  const declared: readonly Index<any>[] = model.indexes ?? [];
  const names = new Set(declared.map((i) => i.spec.name));
  const added = queueIndexes(model, options).filter((i) => !names.has(i.spec.name));
  if (added.length === 0) return model;
  const Base = model as unknown as new () => object;
  const table = class extends Base {
    static tablename = model.tablename;
    static naming = model.naming;
    static indexes = [...declared, ...added];
  };
  Object.defineProperty(table, "name", { value: model.name });
  return table as unknown as M;
}

/** CREATE TABLE IF NOT EXISTS for the model, then CREATE INDEX IF NOT EXISTS for its and the queue's indexes. */
export async function ensureQueueSchema(db: Executor, model: ModelClass<any>, options: QueueOptions = {}): Promise<void> {
  const table = withQueueIndexes(model, options);
  await db.execute(createTable(table, { ifNotExists: true })).rowsAffected();
  for (const statement of createIndexes(table, { ifNotExists: true })) await db.execute(statement).rowsAffected();
}
