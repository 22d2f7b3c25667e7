import type { Executor } from "tempest-db-js";
import { op, select, update, ValidationError } from "tempest-db-js";
import { allOf } from "./message-filter.js";
import type { QueueTable } from "./queue-table.js";
import { runClaimTransaction } from "./run-claim-transaction.js";
import { valueKind } from "./value-kind.js";

/** What an operator's verb changed. */
export interface OperatorResult<Id = unknown> {
  /** Messages changed. */
  readonly count: number;
  /** Their ids, up to `maxIds` (default 1000). */
  readonly ids: readonly Id[];
  /** `ids` names every message changed (false once more than `maxIds` were). */
  readonly idsComplete: boolean;
}

/** How many rows an operator's verb changes per transaction, and in all. */
export interface BatchOptions {
  /** Rows per transaction (default 500): each batch locks at most this many rows, briefly. */
  readonly batchSize?: number;
  /** Most rows to change in this call (default: all that match). Call again for more. */
  readonly limit?: number;
  /** Most ids to return (default 1000); `count` is exact either way. */
  readonly maxIds?: number;
}

export interface BatchPlan {
  readonly where: readonly unknown[];
  readonly set: Record<string, unknown>;
  /**
   * The change leaves the rows matching `where` (a status change): each batch takes the next rows
   * that still match. Otherwise (a reschedule) the batches walk the ids in order.
   */
  readonly leaves: boolean;
}

/**
 * Changes the matching rows a batch at a time, each batch a short transaction of its own: select up
 * to `batchSize` ids — locked and skipping rows another transaction holds (a worker claiming or
 * settling them), where rows can be locked; serialized where writers are — then update exactly
 * those, re-checking the condition. Nothing waits long and nothing is held between batches.
 */
export async function changeInBatches(
  db: Executor,
  q: QueueTable,
  plan: BatchPlan,
  options: BatchOptions,
  verb: string,
): Promise<OperatorResult> {
  const batchSize = count(options.batchSize ?? 500, "batchSize", verb);
  const limit = options.limit === undefined ? Number.POSITIVE_INFINITY : count(options.limit, "limit", verb);
  const maxIds = options.maxIds === undefined ? 1000 : count(options.maxIds, "maxIds", verb, 0);
  const caps = db.capabilities;
  const ids: unknown[] = [];
  let total = 0;
  let complete = true;
  let after: unknown;
  while (total < limit) {
    const size = Math.min(batchSize, limit - total);
    const conditions = after === undefined ? plan.where : [...plan.where, { [q.f.id]: op.gt(after) }];
    let query = select(q.model, [q.f.id] as any)
      .where(allOf(conditions) as any)
      .limit(size);
    if (!plan.leaves) query = query.orderBy(q.f.id as any);
    if (caps.rowLocks) query = query.forUpdate(caps.skipLocked ? { skipLocked: true } : {});
    const batch = await runClaimTransaction(db, async (tx) => {
      const found = ((await tx.execute(query).all()) as Record<string, unknown>[]).map((r) => r[q.f.id]);
      if (found.length === 0) return { found, changed: 0 };
      const changed = await tx
        .execute(
          update(q.model)
            .set(plan.set as any)
            .where(allOf([{ [q.f.id]: op.in(found) }, ...plan.where]) as any),
        )
        .rowsAffected();
      return { found, changed };
    });
    total += batch.changed;
    // The rows were locked (or writers serialized) from the select to the update: each one found was changed.
    if (batch.changed !== batch.found.length) complete = false;
    for (const id of batch.found) {
      if (ids.length < maxIds) ids.push(id);
      else complete = false;
    }
    if (batch.found.length < size || batch.changed === 0) break;
    if (!plan.leaves) after = batch.found[batch.found.length - 1];
  }
  return { count: total, ids, idsComplete: complete };
}

function count(value: unknown, name: string, verb: string, min = 1): number {
  if (!Number.isSafeInteger(value) || (value as number) < min)
    throw new ValidationError(`${verb}: ${name} must be an integer ≥ ${min}, got ${valueKind(value)}`);
  return value as number;
}

/** Wakes `work()` loops on PostgreSQL when messages became due, as `enqueue` does. */
export async function notifyDue(db: Executor, q: QueueTable, changed: number): Promise<void> {
  if (changed > 0 && db.capabilities.listenNotify) await db.notify(q.channel, String(changed));
}
