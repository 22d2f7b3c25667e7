import type { Executor, ModelClass } from "tempest-db-js";
import { op, select, sql } from "tempest-db-js";
import type { QueueOptions } from "../queue-options.js";
import { queueTable } from "../queue-table.js";

/**
 * The `nextAttemptAt` of the longest-waiting due message (queued, due by the database's clock), or
 * null when nothing is due: how far behind the workers are. The first entry of the `<table>_due`
 * index range, so constant time whatever the depth.
 */
export async function oldestDue(db: Executor, model: ModelClass<any>, options: QueueOptions = {}): Promise<Date | null> {
  const q = queueTable(model, options);
  const { status, nextAttemptAt } = q.f;
  const row = (await db
    .execute(
      select(q.model)
        .columns((h: any) => ({ oldest: h.min(nextAttemptAt) }))
        .where({ [status]: q.s.queued, [nextAttemptAt]: op.lte(sql.now()) } as any),
    )
    .one()) as { oldest: Date | null };
  return row.oldest;
}
