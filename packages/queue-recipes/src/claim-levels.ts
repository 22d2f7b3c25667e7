import type { Executor } from "tempest-db-js";
import { op, select } from "tempest-db-js";
import type { QueueTable } from "./queue-table.js";

/** How long the priorities read from the table are trusted before they are read again. */
export const LEVELS_TTL_MS = 1000;
/** The most distinct priorities walked one by one; the rest are claimed together (see claimBatch). */
export const MAX_LEVELS = 32;

/** The priorities of queued messages, lowest first; `open` when there may be more past the last. */
export interface Levels {
  readonly values: readonly number[];
  readonly open: boolean;
}

interface Cached {
  readonly levels: Levels;
  readonly at: number;
}

const cache = new WeakMap<object, WeakMap<QueueTable, Cached>>();

/**
 * The distinct priorities among queued messages, read as a loose index scan: one index seek per
 * priority (`priority > previous ORDER BY priority LIMIT 1` on `<table>_priority`), so it costs the
 * same at 10,000 or 1,000,000 queued rows. Cached per engine and table for LEVELS_TTL_MS: a priority
 * value new to the table is claimed within that time, and at once when it was queued through this engine.
 */
export async function queuedLevels(db: Executor, q: QueueTable): Promise<Levels> {
  const owner = db.engineKey;
  let byTable = cache.get(owner);
  const hit = byTable?.get(q);
  const now = Date.now();
  if (hit && now - hit.at < LEVELS_TTL_MS) return hit.levels;
  const values: number[] = [];
  let open = false;
  for (;;) {
    if (values.length === MAX_LEVELS) {
      open = true;
      break;
    }
    const where: Record<string, unknown> = { [q.f.status]: q.s.queued };
    const last = values[values.length - 1];
    if (last !== undefined) where[q.f.priority] = op.gt(last);
    const row = (await db
      .execute(
        select(q.model, [q.f.priority] as any)
          .where(where as any)
          .orderBy(q.f.priority as any)
          .limit(1),
      )
      .oneOrNull()) as Record<string, unknown> | null;
    if (row === null) break;
    values.push(Number(row[q.f.priority]));
  }
  const levels: Levels = Object.freeze({ values: Object.freeze(values), open });
  if (!byTable) cache.set(owner, (byTable = new WeakMap()));
  byTable.set(q, { levels, at: now });
  return levels;
}

/** After an enqueue here: a priority the cache does not hold makes the next claim read them again. */
export function noteQueuedPriorities(db: Executor, q: QueueTable, rows: readonly Record<string, unknown>[]): void {
  const byTable = cache.get(db.engineKey);
  const hit = byTable?.get(q);
  if (!hit) return;
  const known = hit.levels.values;
  for (const row of rows) {
    const value = row[q.f.priority];
    const priority = value === undefined ? 0 : Number(value);
    if (!known.includes(priority) && !(hit.levels.open && priority >= (known[known.length - 1] ?? 0))) {
      byTable?.delete(q);
      return;
    }
  }
}
