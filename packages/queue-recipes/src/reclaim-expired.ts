import type { Executor, ModelClass } from "tempest-db-js";
import { op, select, sql, update, ValidationError } from "tempest-db-js";
import { plusOne } from "./per-claim.js";
import { poisonRule } from "./poison-rule.js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";
import { retryStatement } from "./retry-statement.js";
import { runClaimTransaction } from "./run-claim-transaction.js";

export interface ReclaimOptions extends QueueOptions {
  /** A claim older than this many seconds (by `updatedAt`, on the database clock) is presumed dead. */
  readonly leaseSeconds: number;
  /**
   * With the `reclaims` column (the dead-letter feature): a message whose lease has run out this many
   * times goes to the dead-letter state (`failed`, `deadReason` "reclaims") instead of back to the
   * queue — it crashes or hangs every worker that takes it. Default 5.
   */
  readonly maxReclaims?: number;
}

/** Expired claims reclaimed per statement; more are taken by the following rounds. */
const RECLAIM_BATCH = 500;

/**
 * Puts messages left in `sending` past their lease — their worker crashed, hung or lost its
 * connection — back to `queued`, due at once. Without a claim token `attempts` is left as it is:
 * the next claim adds one, so the old worker's fencing token no longer matches and its late
 * completion changes nothing. With one, the token is advanced here and `attempts` is left alone.
 * Returns how many messages were reclaimed.
 *
 * Where rows can be locked, the expired rows are selected `FOR UPDATE SKIP LOCKED` first: a row
 * some live transaction holds (its worker settling it at this moment, another reclaimer) is skipped
 * rather than waited for, so one locked row can never stall a worker's loop.
 */
export async function reclaimExpired(db: Executor, model: ModelClass<any>, options: ReclaimOptions): Promise<number> {
  const { leaseSeconds } = options;
  if (typeof leaseSeconds !== "number" || !(leaseSeconds >= 0))
    throw new ValidationError("reclaimExpired: leaseSeconds must be a number ≥ 0");
  const q = queueTable(model, options);
  const expired = { [q.f.status]: q.s.sending, [q.f.updatedAt]: op.lt(sql.nowPlusSeconds(-leaseSeconds)) };
  const set: Record<string, unknown> = { [q.f.status]: q.s.queued, [q.f.nextAttemptAt]: sql.now(), [q.f.updatedAt]: sql.now() };
  // With a claim token the reclaim advances it too, so the old holder's heartbeat and settlements
  // are fenced out at once; `attempts` (failures only) is not touched: an expiry is not a failure.
  if (q.has.claimToken) set[q.f.claimToken] = plusOne(q, q.f.claimToken);
  const poison = poisonRule(q, options, set);
  const caps = db.capabilities;
  if (!caps.rowLocks || !caps.skipLocked) {
    // Serialized writers (SQLite) have no row to wait for; without SKIP LOCKED a lock wait is the best there is.
    const run = (where: Record<string, unknown>, assignments: Record<string, unknown>) =>
      retryStatement(db, () =>
        db
          .execute(
            update(q.model)
              .set(assignments as any)
              .where(where as any),
          )
          .rowsAffected(),
      );
    if (!poison) return run(expired, set);
    return (await run({ ...expired, ...poison.exhausted }, poison.dead)) + (await run({ ...expired, ...poison.spared }, set));
  }
  let total = 0;
  for (;;) {
    const reclaimed = await runClaimTransaction(db, async (tx) => {
      const rows = (await tx
        .execute(
          select(q.model, [q.f.id] as any)
            .where(expired as any)
            .limit(RECLAIM_BATCH)
            .forUpdate({ skipLocked: true }),
        )
        .all()) as Record<string, unknown>[];
      if (rows.length === 0) return 0;
      const ids = rows.map((r) => r[q.f.id]);
      const dead = poison
        ? await tx
            .execute(
              update(q.model)
                .set(poison.dead as any)
                .where({ [q.f.id]: op.in(ids), ...expired, ...poison.exhausted } as any),
            )
            .rowsAffected()
        : 0;
      const requeued = await tx
        .execute(
          update(q.model)
            .set(set as any)
            .where({ [q.f.id]: op.in(ids), ...expired } as any),
        )
        .rowsAffected();
      return dead + requeued;
    });
    total += reclaimed;
    if (reclaimed < RECLAIM_BATCH) return total;
  }
}
