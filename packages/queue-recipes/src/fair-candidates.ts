import type { Executor } from "tempest-db-js";
import { cte, op, select } from "tempest-db-js";
import { dueCondition } from "./due-condition.js";
import type { QueueTable } from "./queue-table.js";

/**
 * Candidates read per claim, as a multiple of its size: concurrent workers compute the same list,
 * and each then locks the first rows the others have not, so the list covers that many workers.
 */
export const FAIR_CANDIDATES_PER_CLAIM = 4;

/**
 * The ids a fair claim may take: each consumer's `perConsumer` messages due first, ranked by their
 * place in that consumer's own queue, then by due time: every consumer's first message before any
 * consumer's second. A window function ranks them, read without a lock (PostgreSQL refuses FOR
 * UPDATE beside a window function; the claim then locks these ids with SKIP LOCKED and checks them
 * again). No LATERAL, which MariaDB lacks: one ROW_NUMBER over the due messages, on every database.
 * It reads every due message once, so its cost grows with the due backlog (not with the messages
 * scheduled later).
 */
export async function fairCandidates(
  db: Executor,
  q: QueueTable,
  size: number,
  perConsumer: number,
  consumer: string | readonly string[] | undefined,
): Promise<unknown[]> {
  const ranked = cte(
    "tempest_fair",
    select(q.model)
      .columns((h: any) => ({
        id: q.f.id,
        at: q.f.nextAttemptAt,
        turn: h.rowNumber().over({ partitionBy: [q.f.consumer], orderBy: [q.f.nextAttemptAt, q.f.id] }),
      }))
      .where(dueCondition(q, consumer) as any) as any,
  );
  const rows = (await db
    .execute(
      select(ranked as any)
        .where({ turn: op.lte(perConsumer) } as any)
        .orderBy("turn" as any)
        .orderBy("at" as any)
        .orderBy("id" as any)
        .limit(size * FAIR_CANDIDATES_PER_CLAIM) as any,
    )
    .all()) as Record<string, unknown>[];
  return rows.map((r) => r.id);
}
