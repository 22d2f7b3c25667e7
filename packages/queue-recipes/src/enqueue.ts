import { randomUUID } from "node:crypto";
import type { Executor, InferInsert, ModelClass } from "tempest-db-js";
import {
  cte,
  fn,
  insert,
  isExpression,
  isTransaction,
  op,
  scalar,
  select,
  sql,
  UnsupportedFeatureError,
  ValidationError,
} from "tempest-db-js";
import { chunk } from "./chunk.js";
import { noteQueuedPriorities } from "./claim-levels.js";
import type { QueueOptions } from "./queue-options.js";
import type { QueueTable } from "./queue-table.js";
import { queueTable } from "./queue-table.js";
import { retryStatement } from "./retry-statement.js";
import { TRANSACTION_RETRIES } from "./run-claim-transaction.js";
import { assertIdempotencyIndex } from "./verify-queue-schema.js";

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
  /**
   * Estimated bytes of values per INSERT before the messages are split into another statement
   * (default 4 MiB, under MariaDB's default 16 MiB `max_allowed_packet`). A single larger message
   * goes in a statement of its own.
   */
  readonly maxStatementBytes?: number;
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
 * Estimated bytes of bound values per INSERT (default of `maxStatementBytes`): well under MariaDB's
 * default `max_allowed_packet` (16 MiB; MySQL 8: 64 MiB), so a run of large payloads is split into
 * several statements instead of one the server refuses (and then drops the connection on).
 */
const MAX_BYTES_PER_INSERT = 4 * 1024 * 1024;

/**
 * Inserts messages idempotently. A message whose (consumer, idempotencyKey) already exists is not
 * inserted and is reported as a duplicate; messages without a key are always inserted. Two callers
 * racing with one key leave one row: the unique index arbitrates, not a read before the write.
 *
 * All or nothing: every statement is built (and its values checked) before any runs, and when the
 * messages take more than one INSERT they run in one transaction (the caller's, when `db` is one).
 * An error in a message names its position in `messages`.
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
  const maxBytes = options.maxStatementBytes ?? MAX_BYTES_PER_INSERT;
  if (!(typeof maxBytes === "number" && maxBytes > 0)) throw new ValidationError("enqueue: maxStatementBytes must be a positive number");
  const perInsert = Math.max(
    1,
    Math.min(MAX_ROWS_PER_INSERT, Math.floor(db.capabilities.maxParams / Object.keys(rows[0] ?? { x: 1 }).length) - 1),
  );
  await assertIdempotencyIndex(db, q);
  const parts = chunkRows(rows, perInsert, maxBytes);
  const wantsNotify = (options.notify ?? true) && db.capabilities.listenNotify;
  // PostgreSQL: the notification is sent by the INSERT's own statement, one round trip (see buildChunk).
  const notifyInline = wantsNotify && db.capabilities.dataModifyingCtes && db.capabilities.returningInsert && notifiesInline(db, q);
  const statements = parts.map((part) => buildChunk(db, q, part, notifyInline));
  const insertedIds = new Set<unknown>();
  const run = async (on: Executor) => {
    for (const statement of statements) for (const id of await runChunk(on, q, statement)) insertedIds.add(id);
  };
  if (statements.length <= 1 || isTransaction(db)) await run(db);
  else await db.transaction(run, { retryOnDeadlock: TRANSACTION_RETRIES });
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
  if (inserted.length > 0 && q.has.priority) noteQueuedPriorities(db, q, rows);
  if (inserted.length > 0 && wantsNotify && !notifyInline) await db.notify(q.channel, String(inserted.length));
  return { inserted, duplicates };
}

interface Chunk {
  /** Position of the chunk's first row in the caller's input. */
  readonly offset: number;
  readonly rows: readonly Record<string, unknown>[];
}

/** Runs of at most `perInsert` rows and (by estimate) `maxBytes` of values; a larger row goes alone. */
function chunkRows(rows: readonly Record<string, unknown>[], perInsert: number, maxBytes: number): Chunk[] {
  const out: Chunk[] = [];
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < rows.length; i++) {
    const size = rowBytes(rows[i] as Record<string, unknown>);
    if (i > start && (i - start >= perInsert || bytes + size > maxBytes)) {
      out.push({ offset: start, rows: rows.slice(start, i) });
      start = i;
      bytes = 0;
    }
    bytes += size;
  }
  if (start < rows.length) out.push({ offset: start, rows: rows.slice(start) });
  return out;
}

/** An upper estimate of a row's bytes on the wire: text as UTF-8 (3 bytes a character when short), JSON as its text. */
function rowBytes(row: Record<string, unknown>): number {
  let bytes = 0;
  for (const key in row) {
    const value = row[key];
    if (typeof value === "string") bytes += value.length <= 4096 ? value.length * 3 : Buffer.byteLength(value);
    else if (value === null || value === undefined || typeof value !== "object") bytes += 8;
    else if (value instanceof Date) bytes += 24;
    else if (ArrayBuffer.isView(value)) bytes += value.byteLength * 2;
    else if (isExpression(value)) bytes += 16;
    else bytes += jsonBytes(value);
  }
  return bytes;
}

function jsonBytes(value: object): number {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? 8 : Buffer.byteLength(text);
  } catch {
    return 8; // not JSON at all: the insert's own check reports it
  }
}

interface BuiltChunk {
  readonly offset: number;
  readonly ids: readonly unknown[];
  /** The INSERT, or the SELECT over it that also notifies (its rows are the inserted ids either way). */
  readonly statement: unknown;
  readonly returning: boolean;
  readonly readBack: boolean;
}

/**
 * One INSERT that skips key collisions. Where the conflict target may carry the partial index's
 * predicate (PostgreSQL, SQLite) it does; elsewhere the index is a plain unique index and any
 * collision is skipped (MySQL: a no-op `ON DUPLICATE KEY UPDATE`; `INSERT IGNORE` only where
 * neither exists). Built and compiled here, before anything runs, so
 * that a bad value fails the whole enqueue with nothing written; the error names the message's
 * position in the caller's input.
 *
 * `notify` (PostgreSQL): the INSERT becomes a data-modifying CTE, and the SELECT over its RETURNING
 * rows notifies the channel, with the number of rows inserted as the payload — one round trip instead
 * of INSERT then NOTIFY:
 *
 * ```sql
 * WITH tempest_enqueued AS (INSERT ... ON CONFLICT ... DO NOTHING RETURNING id)
 * SELECT e.id, (pg_notify($channel, CAST((SELECT count(*) FROM tempest_enqueued) AS text)) IS NOT NULL) AS notified
 * FROM tempest_enqueued e
 * ```
 *
 * A duplicate returns no row, so it computes no notification; the identical ones of the inserted
 * rows are delivered once (PostgreSQL folds identical notifications of a transaction), at commit —
 * the caller's, when enqueue runs inside its transaction.
 */
function buildChunk(db: Executor, q: QueueTable, chunk: Chunk, notify: boolean): BuiltChunk {
  const caps = db.capabilities;
  try {
    const base = insert(q.model).values(chunk.rows as any);
    const skipping = caps.conflictTargetWhere
      ? base.onConflictDoNothing([q.f.consumer, q.f.idempotencyKey] as any, { where: { [q.f.idempotencyKey]: op.isNull(false) } as any })
      : caps.conflictTarget && !caps.partialIndexes
        ? base.onConflictDoNothing([q.f.consumer, q.f.idempotencyKey] as any)
        : caps.onDuplicateKey
          ? // Not INSERT IGNORE: MySQL's IGNORE also turns errors into warnings (a payload too long for
            // its column would be cut short and stored). A no-op update skips only key collisions.
            base.onDuplicateKeyUpdate({ [q.f.id]: sql.ref(q.f.id) } as any)
          : base.ignoreDuplicates();
    const inserting = (caps.returningInsert ? skipping.returning([q.f.id] as any) : skipping) as ReturnType<typeof insert>;
    const statement = notify ? notifying(q, inserting) : inserting;
    db.compile(statement as never);
    return {
      offset: chunk.offset,
      ids: chunk.rows.map((r) => r[q.f.id]),
      statement,
      returning: caps.returningInsert,
      // A no-op ON DUPLICATE KEY UPDATE counts a skipped row as affected: only reading back tells.
      readBack: !caps.returningInsert && !caps.conflictTarget && caps.onDuplicateKey,
    };
  } catch (error) {
    throw atPosition(error, chunk);
  }
}

/** Per engine: whether its compiler writes `fn.notify` (a dialect may have `notifySql()` only, and then sends NOTIFY apart). */
const inlineNotify = new WeakMap<object, boolean>();

function notifiesInline(db: Executor, q: QueueTable): boolean {
  let known = inlineNotify.get(db.engineKey);
  if (known === undefined) {
    try {
      db.compile(select(q.model).columns(() => ({ notified: fn.notify(fn.val(q.channel), fn.val("0")) })) as never);
      known = true;
    } catch (error) {
      if (!UnsupportedFeatureError.isInstance(error)) throw error;
      known = false;
    }
    inlineNotify.set(db.engineKey, known);
  }
  return known;
}

/** The SELECT over the INSERT's returned ids that also notifies the channel (see buildChunk). */
function notifying(q: QueueTable, inserting: ReturnType<typeof insert>): unknown {
  const enqueued = cte("tempest_enqueued", inserting as any);
  const count = scalar((select(enqueued as any) as any).columns((h: any) => ({ n: h.count() })));
  return (select(enqueued as any, "e") as any).columns(() => ({
    [q.f.id]: `e.${q.f.id}`,
    notified: fn.notify(fn.val(q.channel), fn.cast(count as any, "text")),
  }));
}

/** A builder's "row N" of a chunk, restated as the message's position in the caller's input. */
function atPosition(error: unknown, chunk: Chunk): unknown {
  if (!ValidationError.isInstance(error)) return error;
  const message = (error as Error).message;
  const match = /\brow (\d+)\b:?\s*/.exec(message);
  if (!match)
    return new ValidationError(`enqueue: messages ${chunk.offset}–${chunk.offset + chunk.rows.length - 1}: ${message}`, { cause: error });
  const position = chunk.offset + Number(match[1]);
  const detail = message.slice(match.index + match[0].length);
  return new ValidationError(`enqueue: message ${position}: ${detail}`, { cause: error });
}

/** Runs a built INSERT and returns the ids it really inserted (read back where inserts have no RETURNING). */
async function runChunk(db: Executor, q: QueueTable, chunk: BuiltChunk): Promise<unknown[]> {
  if (chunk.returning) {
    const returned = await retryStatement(db, () => db.execute(chunk.statement as never).all());
    return returned.map((r) => (r as Record<string, unknown>)[q.f.id]);
  }
  const affected = await retryStatement(db, () => db.execute(chunk.statement as never).rowsAffected());
  if (!chunk.readBack && affected === chunk.ids.length) return [...chunk.ids];
  if (affected === 0) return [];
  const found = await db.execute(select(q.model, [q.f.id] as any).where({ [q.f.id]: op.in(chunk.ids as unknown[]) } as any)).all();
  return found.map((r) => (r as Record<string, unknown>)[q.f.id]);
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
