import type { Executor, ModelClass } from "tempest-db-js";
import { op, select, sql } from "tempest-db-js";
import type { QueueOptions } from "../queue-options.js";
import { queueTable } from "../queue-table.js";

/** How far behind the workers are, by the database's clock. */
export interface OldestDue {
  /** The `nextAttemptAt` of the longest-waiting due message (queued and due), or null when nothing is due. */
  readonly dueAt: Date | null;
  /** Seconds since then, by the database's clock (null when nothing is due). */
  readonly ageSeconds: number | null;
  /** The database's clock when it was read. */
  readonly now: Date;
}

/**
 * The longest-waiting due message's due time and its age, both read in one statement, so the age is
 * measured by the database's clock, not by the reader's. The first entry of the `<table>_due` index
 * range, so constant time whatever the depth.
 */
export async function oldestDue(db: Executor, model: ModelClass<any>, options: QueueOptions = {}): Promise<OldestDue> {
  const q = queueTable(model, options);
  const { status, nextAttemptAt } = q.f;
  const row = (await db
    .execute(
      select(q.model)
        .columns((h: any) => ({ dueAt: h.min(nextAttemptAt), now: h.cast(sql.now(), "datetime") }))
        .where({ [status]: q.s.queued, [nextAttemptAt]: op.lte(sql.now()) } as any),
    )
    .one()) as { dueAt: Date | null; now: Date };
  const ageSeconds = row.dueAt === null ? null : Math.max(0, (row.now.getTime() - row.dueAt.getTime()) / 1000);
  return { dueAt: row.dueAt, ageSeconds, now: row.now };
}
