import { op, sql, ValidationError } from "tempest-db-js";
import { DEAD_REASONS } from "./dead-reasons.js";
import { plusOne } from "./per-claim.js";
import type { QueueTable } from "./queue-table.js";
import type { ReclaimOptions } from "./reclaim-expired.js";
import { valueKind } from "./value-kind.js";

/** Lease expiries after which a message is taken for a poison message (where the table counts them). */
export const DEFAULT_MAX_RECLAIMS = 5;

/** How a reclaim tells a poison message apart, and what it writes to one. */
export interface PoisonRule {
  /** Expired claims whose lease has now run out `maxReclaims` times. */
  readonly exhausted: Record<string, unknown>;
  /** The others, reclaimed as usual. */
  readonly spared: Record<string, unknown>;
  /** The dead-letter assignments for the exhausted ones. */
  readonly dead: Record<string, unknown>;
}

/**
 * With the `reclaims` column, a reclaim counts the expiry (`reclaim` gains `reclaims + 1`) and sends
 * a message past `maxReclaims` to the dead-letter state instead of back to the queue. Without the
 * column there is nothing to count with: undefined, and reclaims stay as they were.
 */
export function poisonRule(q: QueueTable, options: ReclaimOptions, reclaim: Record<string, unknown>): PoisonRule | undefined {
  if (!q.has.reclaims) {
    if (options.maxReclaims !== undefined)
      throw new ValidationError(
        `maxReclaims needs the ${q.f.reclaims} column (the dead-letter feature): add it with withQueueFeatures(Model) and a migration`,
      );
    return undefined;
  }
  const max = options.maxReclaims ?? DEFAULT_MAX_RECLAIMS;
  if (!Number.isSafeInteger(max) || max < 1) throw new ValidationError(`maxReclaims must be a positive integer, got ${valueKind(max)}`);
  const counted = plusOne(q, q.f.reclaims);
  reclaim[q.f.reclaims] = counted;
  const dead: Record<string, unknown> = {
    [q.f.status]: q.s.failed,
    [q.f.reclaims]: counted,
    [q.f.updatedAt]: sql.now(),
  };
  // The fence moves as on any reclaim, so the worker that still holds the claim is turned away.
  if (q.has.claimToken) dead[q.f.claimToken] = plusOne(q, q.f.claimToken);
  if (q.has.deadReason) dead[q.f.deadReason] = DEAD_REASONS.reclaims;
  if (q.has.lastError)
    dead[q.f.lastError] =
      `lease expired ${max} time${max === 1 ? "" : "s"} without a settlement: the delivery crashed or hung every worker that took it`;
  if (q.has.lastErrorAt) dead[q.f.lastErrorAt] = sql.now();
  return {
    exhausted: { [q.f.reclaims]: op.gte(max - 1) },
    spared: { [q.f.reclaims]: op.lt(max - 1) },
    dead,
  };
}
