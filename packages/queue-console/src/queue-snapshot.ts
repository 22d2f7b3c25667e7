import type { ConsumerDepth, FailingConsumer, InFlightClaim, OldestDue, QueueDepth, ThroughputBucket } from "@tempest-db-js/queue-recipes";
import { consumerDepth, failingConsumers, inFlight, oldestDue, queueDepth, throughput } from "@tempest-db-js/queue-recipes";
import type { QueueTarget } from "./queue-target.js";

/** Everything the `stats` command and the dashboard's first screen show, read in one pass. */
export interface QueueSnapshot {
  readonly depth: QueueDepth;
  /** The longest-waiting due message's due time and age, and the database's clock. */
  readonly oldestDue: OldestDue;
  readonly consumers: readonly ConsumerDepth[];
  readonly inFlight: readonly InFlightClaim[];
  readonly throughput: readonly ThroughputBucket[];
  readonly failing: readonly FailingConsumer[];
}

export interface SnapshotOptions {
  /** Consumers, claims and failing consumers shown (default 20). */
  readonly limit?: number;
  /** Minutes of throughput (default 15). */
  readonly minutes?: number;
}

/** Reads every metric of the queue, one indexed statement each, in sequence (one connection at a time). */
export async function queueSnapshot(target: QueueTarget, options: SnapshotOptions = {}): Promise<QueueSnapshot> {
  const { db, model } = target;
  const base = target.options ?? {};
  const limit = options.limit ?? 20;
  return {
    depth: await queueDepth(db, model, base),
    oldestDue: await oldestDue(db, model, base),
    consumers: await consumerDepth(db, model, { ...base, limit }),
    inFlight: await inFlight(db, model, { ...base, limit }),
    throughput: await throughput(db, model, { ...base, minutes: options.minutes ?? 15 }),
    failing: await failingConsumers(db, model, { ...base, limit }),
  };
}
