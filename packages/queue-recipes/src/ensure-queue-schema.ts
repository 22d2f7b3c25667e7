import type { Executor, Index, ModelClass } from "tempest-db-js";
import { createIndexes, createTable, tableMeta, UnsupportedFeatureError, ValidationError } from "tempest-db-js";
import { queueIndexes } from "./queue-indexes.js";
import type { QueueOptions } from "./queue-options.js";
import type { QueueSchemaReport, SchemaProblem } from "./verify-queue-schema.js";
import { NO_FEATURES, verifyQueueSchema } from "./verify-queue-schema.js";

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

/**
 * CREATE TABLE IF NOT EXISTS for the model, then CREATE INDEX IF NOT EXISTS for its and the queue's
 * indexes, then `verifyQueueSchema`: a table that existed already may lack columns or have an index
 * of the same name that is not what the queue needs. Throws a ValidationError listing each required
 * column or index still missing with the DDL that adds it; otherwise resolves with the report (whose
 * `problems` then name only optional columns and indexes, each with its DDL).
 */
export async function ensureQueueSchema(db: Executor, model: ModelClass<any>, options: QueueOptions = {}): Promise<QueueSchemaReport> {
  const table = withQueueIndexes(model, options);
  await db.execute(createTable(table, { ifNotExists: true })).rowsAffected();
  // Columns first: an index over a column the table lacks would fail with a less helpful error.
  const before = await verify(db, model, options);
  if (before) refuse(model, before, (p) => p.kind !== "index");
  for (const statement of createIndexes(table, { ifNotExists: true })) await db.execute(statement).rowsAffected();
  const report = await verify(db, model, options);
  if (!report) return { ok: true, problems: [], features: NO_FEATURES };
  refuse(model, report, () => true);
  return report;
}

/** The report, or undefined on a dialect without a catalog query (the table was created as declared). */
async function verify(db: Executor, model: ModelClass<any>, options: QueueOptions): Promise<QueueSchemaReport | undefined> {
  try {
    return await verifyQueueSchema(db, model, options);
  } catch (error) {
    if (UnsupportedFeatureError.isInstance(error)) return undefined;
    throw error;
  }
}

function refuse(model: ModelClass<any>, report: QueueSchemaReport, which: (p: SchemaProblem) => boolean): void {
  const lines = report.problems
    .filter((p) => p.required && which(p))
    .map((p) => `- ${p.kind} ${p.name}: ${p.effect}. Add it: ${p.ddl.join("; ")}`);
  if (lines.length === 0) return;
  throw new ValidationError(`ensureQueueSchema: ${tableMeta(model).name} exists but lacks what the queue needs:\n${lines.join("\n")}`);
}
