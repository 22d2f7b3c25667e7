import type { Executor, ModelClass } from "tempest-db-js";
import { op, select, ValidationError } from "tempest-db-js";
import type { QueueOptions } from "../queue-options.js";
import { queueTable } from "../queue-table.js";

export interface ConsumerDepthOptions extends QueueOptions {
  /** At most this many consumers, the deepest first (default 50, at most 1000). */
  readonly limit?: number;
}

/** One consumer's messages that are not settled as sent. */
export interface ConsumerDepth {
  readonly consumer: string;
  readonly queued: number;
  readonly sending: number;
  readonly failed: number;
  /** The earliest `nextAttemptAt` of its queued messages (null when none is queued). */
  readonly nextAttemptAt: Date | null;
}

/**
 * The consumers with the most unsettled messages (queued, sending or failed), deepest first, in one
 * grouped statement. Sent messages are left out: they are most of a busy table and say nothing about
 * what is waiting. The rows are found through the `<table>_due` index by status; with
 * `metricsIndexes(Model)` declared too, PostgreSQL and MySQL group from the (status, consumer) index.
 */
export async function consumerDepth(db: Executor, model: ModelClass<any>, options: ConsumerDepthOptions = {}): Promise<ConsumerDepth[]> {
  const q = queueTable(model, options);
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new ValidationError("consumerDepth: limit must be an integer from 1 to 1000");
  const { status, consumer, nextAttemptAt } = q.f;
  const statement = select(q.model)
    .columns((h: any) => ({
      consumer,
      queued: h.countIf({ [status]: q.s.queued }),
      sending: h.countIf({ [status]: q.s.sending }),
      failed: h.countIf({ [status]: q.s.failed }),
      unsettled: h.count(),
      nextAttemptAt: h.min(nextAttemptAt, { filter: { [status]: q.s.queued } }),
    }))
    .where({ [status]: op.in([q.s.queued, q.s.sending, q.s.failed]) } as any)
    .groupBy(consumer as any)
    .orderBy("unsettled" as any, "desc")
    .orderBy("consumer" as any)
    .limit(limit);
  const rows = (await db.execute(statement).all()) as (ConsumerDepth & { unsettled: number })[];
  return rows.map(({ unsettled: _, ...row }) => row);
}
