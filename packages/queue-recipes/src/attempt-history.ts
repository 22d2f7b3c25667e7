import { fn } from "tempest-db-js";
import { errorText } from "./failure-set.js";
import type { QueueTable } from "./queue-table.js";

/**
 * One failed attempt in a message's `attemptHistory` (the dead-letter feature). Written by the worker
 * that held the claim, in the fenced statement that settles it, so no attempt is lost or written twice.
 */
export interface AttemptRecord {
  /** The attempt's number (1 for the first delivery). */
  readonly attempt: number;
  /** When the claim of this attempt was taken, on the database clock (ISO-8601). */
  readonly at: string | null;
  /** What the delivery threw, shortened to `HISTORY_ERROR_TEXT` characters; null when nothing was said. */
  readonly error: string | null;
  /** Lease expiries of the message before this attempt was settled (where the table counts them). */
  readonly reclaims?: number;
}

/** Attempts kept per message: the last ones, so that a row stays small however often it fails. */
export const HISTORY_LENGTH = 10;
/** Characters of an error kept per attempt (the whole last error is in `lastError`). */
export const HISTORY_ERROR_TEXT = 300;

/** The history a claim carries (as read by its claim), with one more record, the oldest dropped past HISTORY_LENGTH. */
export function withAttempt(q: QueueTable, claim: Record<string, unknown>, attempt: number, error: unknown): AttemptRecord[] {
  const before = claim[q.f.attemptHistory];
  const history = Array.isArray(before) ? (before as AttemptRecord[]) : [];
  const at = claim[q.f.updatedAt];
  const text = error === undefined ? null : errorText(error);
  const record: AttemptRecord = {
    attempt,
    at: at instanceof Date ? at.toISOString() : null,
    error: text !== null && text.length > HISTORY_ERROR_TEXT ? `${text.slice(0, HISTORY_ERROR_TEXT - 1)}…` : text,
    ...(q.has.reclaims ? { reclaims: Number(claim[q.f.reclaims] ?? 0) } : {}),
  };
  return [...history, record].slice(-HISTORY_LENGTH);
}

/**
 * The new `attemptHistory` of a claim settled after a failure (a statement per claim: a json value
 * cannot be chosen per row in a CASE on every database). Bound as a parameter.
 */
export function historyValue(history: readonly AttemptRecord[]): unknown {
  return fn.val(history as never, "json");
}
