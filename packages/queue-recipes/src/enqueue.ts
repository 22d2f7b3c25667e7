import { randomUUID } from "node:crypto";
import type { Executor, InferInsert, ModelClass } from "tempest-db-js";
import { insert, op, select, sql, ValidationError } from "tempest-db-js";
import { chunk } from "./chunk.js";
import type { QueueOptions } from "./queue-options.js";
import type { QueueTable } from "./queue-table.js";
import { queueTable } from "./queue-table.js";
import { retryStatement } from "./retry-statement.js";

/**
 * A message to enqueue: the model's insert shape, with the queue's own fields optional. The id is
 * generated when omitted (uuid ids); status and attempts are always set by the recipe.
 */
export type EnqueueMessage<M extends ModelClass<any>> = Partial<InferInsert<M>>;

export interface EnqueueOptions extends QueueOptions {
  /** Seconds until the messages are due (default 0), counted on the database clock. A message's own nextAttemptAt wins. */
  readonly delaySeconds?: number;
  /** Notify the channel so that `work()` loops wake at once (default: true where the dialect has LISTEN/NOTIFY). */
  readonly notify?: boolean;
}

export interface EnqueuedMessage<M extends ModelClass<any>> {
  /** Position in the input. */
  readonly index: number;
  /** The row's id: the new row for an insert; for a duplicate, the row that already held the key (undefined if it has gone since). */
  readonly id: unknown;
  readonly message: EnqueueMessage<M>;
}

export interface EnqueueResult<M extends ModelClass<any>> {
  readonly inserted: readonly EnqueuedMessage<M>[];
  /** Messages whose (consumer, idempotencyKey) was already queued — by an earlier call or earlier in this one. */
  readonly duplicates: readonly EnqueuedMessage<M>[];
}

/** Rows per INSERT: few enough for every dialect's parameter limit and a reasonable packet. */
const MAX_ROWS_PER_INSERT = 500;

/**
 * Inserts messages idempotently. A message whose (consumer, idempotencyKey) already exists is not
 * inserted and is reported as a duplicate; messages without a key are always inserted. Two callers
 * racing with one key leave one row: the unique index arbitrates, not a read before the write.
 */
export async function enqueue<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  messages: EnqueueMessage<M> | readonly EnqueueMessage<M>[],
  options: EnqueueOptions = {},
): Promise<EnqueueResult<M>> {
  const q = queueTable(model, options);
  const list = (Array.isArray(messages) ? messages : [messages]) as readonly EnqueueMessage<M>[];
  const rows = list.map((message, i) => toRow(q, message, i, options.delaySeconds ?? 0));
  const insertedIds = new Set<unknown>();
  const perInsert = Math.max(
    1,
    Math.min(MAX_ROWS_PER_INSERT, Math.floor(db.capabilities.maxParams / Object.keys(rows[0] ?? { x: 1 }).length) - 1),
  );
  for (const part of chunk(rows, perInsert)) {
    for (const id of await insertChunk(db, q, part)) insertedIds.add(id);
  }
  const inserted: EnqueuedMessage<M>[] = [];
  const duplicates: EnqueuedMessage<M>[] = [];
  rows.forEach((row, index) => {
    const entry = { index, id: row[q.f.id], message: list[index] as EnqueueMessage<M> };
    (insertedIds.has(row[q.f.id]) ? inserted : duplicates).push(entry);
  });
  if (duplicates.length > 0) {
    const existing = await existingIds(
      db,
      q,
      duplicates.map((d) => rows[d.index] as Record<string, unknown>),
    );
    for (let i = 0; i < duplicates.length; i++) {
      const d = duplicates[i] as EnqueuedMessage<M>;
      const row = rows[d.index] as Record<string, unknown>;
      duplicates[i] = { ...d, id: existing.get(keyOf(row[q.f.consumer], row[q.f.idempotencyKey])) };
    }
  }
  if (inserted.length > 0 && (options.notify ?? true) && db.capabilities.listenNotify) {
    await db.notify(q.channel, String(inserted.length));
  }
  return { inserted, duplicates };
}

function toRow(q: QueueTable, message: unknown, i: number, delaySeconds: number): Record<string, unknown> {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    throw new ValidationError(`enqueue: message ${i} is not an object`);
  }
  const row: Record<string, unknown> = { ...(message as Record<string, unknown>) };
  if (row[q.f.id] === undefined) {
    if (q.meta.byField.get(q.f.id)?.kind !== "uuid") {
      throw new ValidationError(`enqueue: message ${i} needs a ${q.f.id}; only uuid ids are generated`);
    }
    row[q.f.id] = randomUUID();
  }
  row[q.f.status] = q.s.queued;
  row[q.f.attempts] = 0;
  row[q.f.nextAttemptAt] ??= delaySeconds === 0 ? sql.now() : sql.nowPlusSeconds(delaySeconds);
  row[q.f.updatedAt] = sql.now();
  return row;
}

/**
 * One INSERT that skips key collisions, and the ids it really inserted. Where the conflict target
 * may carry the partial index's predicate (PostgreSQL, SQLite) it does; elsewhere the index is a
 * plain unique index and any collision is skipped (MySQL `INSERT IGNORE`). With RETURNING the
 * inserted rows come back; without, the ids were generated here, so reading them back tells.
 */
async function insertChunk(db: Executor, q: QueueTable, rows: readonly Record<string, unknown>[]): Promise<unknown[]> {
  const caps = db.capabilities;
  const base = insert(q.model).values(rows as any);
  const statement = caps.conflictTargetWhere
    ? base.onConflictDoNothing([q.f.consumer, q.f.idempotencyKey] as any, { where: { [q.f.idempotencyKey]: op.isNull(false) } as any })
    : caps.conflictTarget && !caps.partialIndexes
      ? base.onConflictDoNothing([q.f.consumer, q.f.idempotencyKey] as any)
      : base.ignoreDuplicates();
  const ids = rows.map((r) => r[q.f.id]);
  if (caps.returningInsert) {
    const returned = await retryStatement(db, () => db.execute(statement.returning([q.f.id] as any)).all());
    return returned.map((r) => (r as Record<string, unknown>)[q.f.id]);
  }
  const affected = await retryStatement(db, () => db.execute(statement).rowsAffected());
  if (affected === rows.length) return ids;
  if (affected === 0) return [];
  const found = await db.execute(select(q.model, [q.f.id] as any).where({ [q.f.id]: op.in(ids) } as any)).all();
  return found.map((r) => (r as Record<string, unknown>)[q.f.id]);
}

/** The ids already holding the duplicates' keys, keyed by (consumer, key). */
async function existingIds(db: Executor, q: QueueTable, rows: readonly Record<string, unknown>[]): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  const keys = [...new Set(rows.map((r) => r[q.f.idempotencyKey]).filter((k) => k !== null && k !== undefined))];
  const consumers = [...new Set(rows.map((r) => r[q.f.consumer]))];
  for (const part of chunk(keys, 400)) {
    const found = await db
      .execute(
        select(q.model, [q.f.id, q.f.consumer, q.f.idempotencyKey] as any).where({
          [q.f.consumer]: op.in(consumers),
          [q.f.idempotencyKey]: op.in(part),
        } as any),
      )
      .all();
    for (const r of found as Record<string, unknown>[]) out.set(keyOf(r[q.f.consumer], r[q.f.idempotencyKey]), r[q.f.id]);
  }
  return out;
}

function keyOf(consumer: unknown, key: unknown): string {
  return JSON.stringify([consumer, key]);
}
