import type { Executor, ModelClass } from "tempest-db-js";
import { select, ValidationError } from "tempest-db-js";
import type { QueueOptions } from "../queue-options.js";
import { queueTable } from "../queue-table.js";

export interface InFlightOptions extends QueueOptions {
  /** At most this many claims, the oldest first (default 50, at most 1000). */
  readonly limit?: number;
}

/** A message being delivered: claimed (`sending`) at `claimedAt`, by the database's clock. */
export interface InFlightClaim {
  readonly id: unknown;
  readonly consumer: string;
  readonly attempts: number;
  /** When it was claimed or last heartbeat (its `updatedAt`): the lease runs from here. */
  readonly claimedAt: Date | null;
}

/**
 * The claims in flight, oldest lease first: the ones a reclaim will take back first. A range of the
 * `<table>_lease` index (status, updatedAt), read in index order, so no sort and no scan.
 */
export async function inFlight(db: Executor, model: ModelClass<any>, options: InFlightOptions = {}): Promise<InFlightClaim[]> {
  const q = queueTable(model, options);
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new ValidationError("inFlight: limit must be an integer from 1 to 1000");
  const { id, consumer, attempts, status, updatedAt } = q.f;
  const rows = (await db
    .execute(
      select(q.model)
        .columns({ id, consumer, attempts, claimedAt: updatedAt } as any)
        .where({ [status]: q.s.sending } as any)
        .orderBy(updatedAt as any)
        .limit(limit),
    )
    .all()) as unknown as InFlightClaim[];
  return rows;
}
