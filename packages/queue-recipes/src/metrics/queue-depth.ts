import type { Executor, ModelClass } from "tempest-db-js";
import { op, select, sql } from "tempest-db-js";
import type { QueueOptions } from "../queue-options.js";
import { queueTable } from "../queue-table.js";

/** How many messages wait in each unsettled state, and how many of the queued ones are due now. */
export interface QueueDepth {
  readonly queued: number;
  /** Queued and due: `nextAttemptAt` at or before the database's clock. */
  readonly due: number;
  readonly sending: number;
  readonly failed: number;
}

/**
 * Counts the unsettled messages (queued, sending, failed) by status in one statement. Sent messages
 * are left out: on a busy table they are nearly every row, and counting them would read them all
 * (`throughput` counts the recent ones). Every column read is in the `<table>_due` index (status,
 * nextAttemptAt), and the statuses are ranges of it, so the cost follows the depth, not the table.
 */
export async function queueDepth(db: Executor, model: ModelClass<any>, options: QueueOptions = {}): Promise<QueueDepth> {
  const q = queueTable(model, options);
  const { status, nextAttemptAt } = q.f;
  const rows = (await db
    .execute(
      select(q.model)
        .columns((h: any) => ({
          status,
          n: h.count(),
          due: h.countIf({ [status]: q.s.queued, [nextAttemptAt]: op.lte(sql.now()) }),
        }))
        .where({ [status]: op.in([q.s.queued, q.s.sending, q.s.failed]) } as any)
        .groupBy(status as any),
    )
    .all()) as { status: string; n: number; due: number }[];
  const depth = { queued: 0, due: 0, sending: 0, failed: 0 };
  for (const row of rows) {
    if (row.status === q.s.queued) depth.queued = row.n;
    else if (row.status === q.s.sending) depth.sending = row.n;
    else depth.failed = row.n;
    depth.due += row.due;
  }
  return depth;
}
