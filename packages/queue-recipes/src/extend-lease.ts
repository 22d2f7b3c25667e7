import type { Executor, ModelClass } from "tempest-db-js";
import { sql } from "tempest-db-js";
import type { SettleResult } from "./fenced-update.js";
import { constantSet, fencedUpdate } from "./fenced-update.js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";

export interface ExtendLeaseResult<C> extends SettleResult {
  /** The claims that are no longer this worker's (reclaimed, settled or taken by another claim): stop working on them. */
  readonly lost: readonly C[];
}

/**
 * Renews the lease of claims still being worked on: stamps `updatedAt` with the database clock, so
 * the lease runs `leaseSeconds` from now. Fenced like a settlement — only rows still `sending` under
 * this claim's token change — so a worker that has already lost a claim learns it here (`lost`)
 * instead of renewing someone else's. `drain` and `work` call it for every delivery in flight every
 * `leaseSeconds / 3`; call it yourself when you claim with `claimBatch` and deliver by hand.
 */
export async function extendLease<C extends object>(
  db: Executor,
  model: ModelClass<any>,
  claims: readonly C[],
  options: QueueOptions = {},
): Promise<ExtendLeaseResult<C>> {
  const q = queueTable(model, options);
  const lost: Record<string, unknown>[] = [];
  if (claims.length === 0) return { applied: 0, stale: 0, lost: [] };
  const set = constantSet(q, "leaseSet", () => ({ [q.f.updatedAt]: sql.now() }));
  const result = await fencedUpdate(db, q, claims as unknown as Record<string, unknown>[], set, lost);
  return { ...result, lost: lost as unknown as C[] };
}
