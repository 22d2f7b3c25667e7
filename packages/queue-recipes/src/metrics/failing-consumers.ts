import type { Executor, ModelClass } from "tempest-db-js";
import { op, ref, scalar, select, sql, ValidationError } from "tempest-db-js";
import type { QueueOptions } from "../queue-options.js";
import { queueTable } from "../queue-table.js";

export interface FailingConsumersOptions extends QueueOptions {
  /** At most this many consumers, the most failed first (default 10, at most 1000). */
  readonly limit?: number;
  /** Only failures settled in the last this many seconds (default: all failed messages kept). */
  readonly sinceSeconds?: number;
}

/** A consumer with failed messages, and the error of its latest failure (where the table records errors). */
export interface FailingConsumer {
  readonly consumer: string;
  readonly failed: number;
  /** When its latest failure was settled (`updatedAt`). */
  readonly lastFailedAt: Date | null;
  /** That failure's error text; null without a `lastError` column (see verifyQueueSchema). */
  readonly lastError: string | null;
}

/**
 * The consumers with the most failed messages, with the error of each one's latest failure, in one
 * statement: a grouped range of the `<table>_lease` index (status, updatedAt) and, per consumer
 * returned, a correlated subquery for its latest error.
 */
export async function failingConsumers(
  db: Executor,
  model: ModelClass<any>,
  options: FailingConsumersOptions = {},
): Promise<FailingConsumer[]> {
  const q = queueTable(model, options);
  const limit = options.limit ?? 10;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new ValidationError("failingConsumers: limit must be an integer from 1 to 1000");
  const since = options.sinceSeconds;
  if (since !== undefined && !(typeof since === "number" && since > 0))
    throw new ValidationError("failingConsumers: sinceSeconds must be a number > 0");
  const { consumer, status, updatedAt, lastError, id } = q.f;
  const where: Record<string, unknown> = { [status]: q.s.failed };
  if (since !== undefined) where[updatedAt] = op.gt(sql.nowPlusSeconds(-since));
  const latestError = q.has.lastError
    ? scalar(
        select(q.model, "latest")
          .columns({ error: `latest.${lastError}` } as any)
          .where({ [`latest.${consumer}`]: ref(q.model, "f", consumer as never), [`latest.${status}`]: q.s.failed } as any)
          .orderBy(`latest.${updatedAt}` as any, "desc")
          .orderBy(`latest.${id}` as any, "desc")
          .limit(1),
      )
    : undefined;
  const statement = select(q.model, "f")
    .columns((h: any) => ({
      consumer: `f.${consumer}`,
      failed: h.count(),
      lastFailedAt: h.max(`f.${updatedAt}`),
      ...(latestError ? { lastError: latestError } : {}),
    }))
    .where(Object.fromEntries(Object.entries(where).map(([field, value]) => [`f.${field}`, value])) as any)
    .groupBy(`f.${consumer}` as any)
    .orderBy("failed" as any, "desc")
    .orderBy("consumer" as any)
    .limit(limit);
  const rows = (await db.execute(statement).all()) as (Omit<FailingConsumer, "lastError"> & { lastError?: string | null })[];
  return rows.map((row) => ({ ...row, lastError: row.lastError ?? null }));
}
