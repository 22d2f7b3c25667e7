import type { Executor, ModelClass } from "tempest-db-js";
import { deleteFrom, op, select, sql, ValidationError } from "tempest-db-js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";
import { runClaimTransaction } from "./run-claim-transaction.js";
import { interruptibleSleep } from "./sleep.js";
import { valueKind } from "./value-kind.js";

/** The smallest batch `maxBatchMs` shrinks to (below it, a batch's round trips cost more than its rows). */
const MIN_ADAPTIVE_BATCH = 10;

export interface PurgeOptions extends QueueOptions {
  /** Only rows settled (by `updatedAt`) at least this many seconds ago. */
  readonly olderThanSeconds: number;
  /**
   * Which settled states to delete (default: only `sent`). `failed` is the dead-letter state —
   * failed, poison and cancelled messages — usually kept longer, for inspection and retries.
   */
  readonly include?: readonly ("sent" | "failed")[];
  /** Most rows per DELETE, each batch in a short transaction of its own (default 1000). */
  readonly batchSize?: number;
  /**
   * How long one batch may take, in ms (default: no bound). A batch that took longer halves the next
   * one (down to 10 rows); one that took under a quarter of it doubles the next, up to `batchSize`. On
   * a busy server the purge then slows down instead of holding the server's attention in long
   * transactions.
   */
  readonly maxBatchMs?: number;
  /** Milliseconds to wait between two batches (default 0), in which the purge asks nothing of the server. */
  readonly pauseMs?: number;
  /** Most rows to delete in this call (default: every one past the limit). */
  readonly limit?: number;
  /** Stop between two batches once this aborts (what was deleted stays deleted). */
  readonly signal?: AbortSignal;
}

/**
 * Deletes settled messages older than a cutoff, in batches, and returns how many. Keeping the table
 * to what is in flight keeps the claim's index small. Each batch is one short transaction: the ids
 * of up to `batchSize` old rows are selected through the `(status, updatedAt)` index — locked with
 * SKIP LOCKED where rows can be locked, so that purgers running side by side (one per worker) take
 * disjoint batches and never wait on each other or on a worker — then deleted by id, the condition
 * checked again. No lock outlives its batch, so workers' claims are never held up for longer than
 * one batch's DELETE. A deduplicated key becomes usable again once its row is purged: keep rows at
 * least as long as producers may retry.
 */
export async function purgeSettled(db: Executor, model: ModelClass<any>, options: PurgeOptions): Promise<number> {
  const { olderThanSeconds } = options;
  if (typeof olderThanSeconds !== "number" || !(olderThanSeconds >= 0))
    throw new ValidationError("purgeSettled: olderThanSeconds must be a number ≥ 0");
  const batchSize = options.batchSize ?? 1000;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1)
    throw new ValidationError(`purgeSettled: batchSize must be a positive integer, got ${valueKind(batchSize)}`);
  const maxBatchMs = options.maxBatchMs ?? Number.POSITIVE_INFINITY;
  if (typeof maxBatchMs !== "number" || !(maxBatchMs > 0))
    throw new ValidationError(`purgeSettled: maxBatchMs must be a positive number, got ${valueKind(maxBatchMs)}`);
  const pauseMs = options.pauseMs ?? 0;
  if (typeof pauseMs !== "number" || !(pauseMs >= 0) || !Number.isFinite(pauseMs))
    throw new ValidationError(`purgeSettled: pauseMs must be a number ≥ 0, got ${valueKind(pauseMs)}`);
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (limit !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(limit) || limit < 1))
    throw new ValidationError(`purgeSettled: limit must be a positive integer, got ${valueKind(limit)}`);
  const q = queueTable(model, options);
  const include = options.include ?? ["sent"];
  if (!Array.isArray(include) || include.some((s) => s !== "sent" && s !== "failed"))
    throw new ValidationError('purgeSettled: include lists "sent" and / or "failed"');
  const old = {
    [q.f.status]: op.in(include.map((s: "sent" | "failed") => q.s[s])),
    [q.f.updatedAt]: op.lt(sql.nowPlusSeconds(-olderThanSeconds)),
  };
  const caps = db.capabilities;
  let total = 0;
  let next = batchSize;
  for (let first = true; total < limit && !options.signal?.aborted; first = false) {
    if (!first && pauseMs > 0) {
      await interruptibleSleep(pauseMs, options.signal).promise;
      if (options.signal?.aborted) break;
    }
    const size = Math.min(next, limit - total);
    const startedAt = performance.now();
    let candidates = select(q.model, [q.f.id] as any)
      .where(old as any)
      .limit(size);
    if (caps.rowLocks && caps.skipLocked) candidates = candidates.forUpdate({ skipLocked: true });
    const batch = await runClaimTransaction(db, async (tx) => {
      const ids = ((await tx.execute(candidates).all()) as Record<string, unknown>[]).map((r) => r[q.f.id]);
      if (ids.length === 0) return { found: 0, deleted: 0 };
      const deleted = await tx.execute(deleteFrom(q.model).where({ [q.f.id]: op.in(ids), ...old } as any)).rowsAffected();
      return { found: ids.length, deleted };
    });
    total += batch.deleted;
    if (batch.found < size) break;
    const tookMs = performance.now() - startedAt;
    if (tookMs > maxBatchMs) next = Math.max(Math.min(MIN_ADAPTIVE_BATCH, batchSize), Math.floor(next / 2));
    else if (tookMs < maxBatchMs / 4) next = Math.min(batchSize, next * 2);
  }
  return total;
}
