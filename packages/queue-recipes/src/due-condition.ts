import { op, sql } from "tempest-db-js";
import type { QueueTable } from "./queue-table.js";

/**
 * Datetimes are stored to the millisecond, and a server may round `now()` up when storing it: a
 * message enqueued "now" can read as due half a millisecond in the future. A millisecond of slack
 * keeps "due now" due now.
 */
const DUE_SLACK_SECONDS = 0.001;

/** Queued and due by the database clock (optionally for some consumers only). */
export function dueCondition(q: QueueTable, consumer?: string | readonly string[]): Record<string, unknown> {
  const where: Record<string, unknown> = {
    [q.f.status]: q.s.queued,
    [q.f.nextAttemptAt]: op.lte(sql.nowPlusSeconds(DUE_SLACK_SECONDS)),
  };
  if (consumer !== undefined) where[q.f.consumer] = typeof consumer === "string" ? consumer : op.in(consumer);
  return where;
}
