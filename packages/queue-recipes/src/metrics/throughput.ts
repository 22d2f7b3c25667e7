import type { Executor, ModelClass } from "tempest-db-js";
import { and, op, select, sql, ValidationError } from "tempest-db-js";
import type { QueueOptions } from "../queue-options.js";
import { queueTable } from "../queue-table.js";

export interface ThroughputOptions extends QueueOptions {
  /** How many one-minute buckets, the newest first (default 15, at most 60). */
  readonly minutes?: number;
}

/** The messages settled in one minute: `minutesAgo` 0 is the last 60 seconds by the database's clock. */
export interface ThroughputBucket {
  readonly minutesAgo: number;
  readonly sent: number;
  readonly failed: number;
}

/**
 * Sent and failed messages per minute over the last `minutes` minutes, by `updatedAt` (which every
 * settlement sets from the database's clock). One statement: a filtered count per bucket over the
 * range `status IN (sent, failed) AND updatedAt >= now - window`, which the `<table>_lease` index
 * (status, updatedAt) serves, so the cost follows the settled messages in the window, not the table.
 * Rows purged by retention are no longer counted.
 */
export async function throughput(db: Executor, model: ModelClass<any>, options: ThroughputOptions = {}): Promise<ThroughputBucket[]> {
  const q = queueTable(model, options);
  const minutes = options.minutes ?? 15;
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > 60)
    throw new ValidationError("throughput: minutes must be an integer from 1 to 60");
  const { status, updatedAt } = q.f;
  const statement = select(q.model)
    .columns((h: any) => {
      const columns: Record<string, any> = {};
      for (let k = 0; k < minutes; k++) {
        // (now - 60(k+1) s, now - 60k s]: each settlement falls in exactly one bucket.
        const after = { [updatedAt]: op.gt(sql.nowPlusSeconds(-60 * (k + 1))) };
        const inBucket = k === 0 ? [after] : [after, { [updatedAt]: op.lte(sql.nowPlusSeconds(-60 * k)) }];
        columns[`sent${k}`] = h.countIf(and({ [status]: q.s.sent }, ...inBucket));
        columns[`failed${k}`] = h.countIf(and({ [status]: q.s.failed }, ...inBucket));
      }
      return columns;
    })
    .where({ [status]: op.in([q.s.sent, q.s.failed]), [updatedAt]: op.gt(sql.nowPlusSeconds(-60 * minutes)) } as any);
  const row = (await db.execute(statement).one()) as Record<string, number>;
  return Array.from({ length: minutes }, (_, k) => ({ minutesAgo: k, sent: row[`sent${k}`] ?? 0, failed: row[`failed${k}`] ?? 0 }));
}
