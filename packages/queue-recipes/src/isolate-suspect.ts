import type { Executor, ModelClass } from "tempest-db-js";
import type { QueueOptions } from "./queue-options.js";
import type { QueueTable } from "./queue-table.js";
import { requeue } from "./requeue.js";

/**
 * A *suspect* is a claimed message whose lease has run out before (`reclaims` > 0): its last
 * delivery may have crashed or hung its worker. Delivered beside others, a poison message that
 * kills the process would cost each of its batch-mates a reclaim too, and they would travel back
 * together and die together at `maxReclaims`. So a batch that holds a suspect delivers that one
 * alone and gives the others back to the queue at once — no failure, no reclaim counted. A crash
 * then costs only the message that caused it; an innocent batch-mate of a poison message is
 * reclaimed at most once (the crash before anyone suspected), and is then delivered alone.
 *
 * Without the `reclaims` column nothing is known, and the batch is delivered whole.
 */
export async function isolateSuspect(
  db: Executor,
  model: ModelClass<any>,
  q: QueueTable,
  batch: Record<string, unknown>[],
  options: QueueOptions,
): Promise<Record<string, unknown>[]> {
  if (!q.has.reclaims || batch.length < 2) return batch;
  let suspect: Record<string, unknown> | undefined;
  for (const claim of batch) {
    const reclaims = Number(claim[q.f.reclaims] ?? 0);
    // The least suspicious first: each suspect gets its turn alone, the worst last.
    if (reclaims > 0 && (!suspect || reclaims < Number(suspect[q.f.reclaims]))) suspect = claim;
  }
  if (!suspect) return batch;
  const others = batch.filter((claim) => claim !== suspect);
  await requeue(db, model, others, { fields: options.fields, statuses: options.statuses, channel: options.channel, release: true });
  return [suspect];
}
