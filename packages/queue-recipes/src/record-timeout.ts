import type { Executor } from "tempest-db-js";
import { sql } from "tempest-db-js";
import { errorText } from "./failure-set.js";
import { fencedUpdate } from "./fenced-update.js";
import type { QueueTable } from "./queue-table.js";

/**
 * Writes a timed-out delivery's error into `lastError` / `lastErrorAt` while it is still running,
 * so that a message that outlives its timeout is visible in the table at once, not only once its
 * handler returns. Fenced like a settlement; status, `attempts` and the lease are left alone (the
 * heartbeat keeps the lease, and without it nothing should). A no-op where the table has neither column.
 */
export async function recordTimeout(
  db: Executor,
  q: QueueTable,
  claims: readonly Record<string, unknown>[],
  error: unknown,
): Promise<void> {
  if (claims.length === 0 || !(q.has.lastError || q.has.lastErrorAt)) return;
  const set: Record<string, unknown> = {};
  if (q.has.lastError) set[q.f.lastError] = errorText(error);
  if (q.has.lastErrorAt) set[q.f.lastErrorAt] = sql.now();
  await fencedUpdate(db, q, claims, () => set);
}
