import { fn, sql } from "tempest-db-js";
import { historyValue, withAttempt } from "./attempt-history.js";
import { perClaim, plusOne } from "./per-claim.js";
import type { QueueTable } from "./queue-table.js";

/** Longest error text kept in `lastError` (a message, not a dump). */
const MAX_ERROR_TEXT = 2000;

/** What a failed delivery threw (or returned), as the text recorded in `lastError`. */
export function errorText(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT - 1)}…` : text;
}

/**
 * The assignments a failed delivery adds to its settlement: one more failure in `attempts` where a
 * claim token is the fence (without one the claim already counted it), and the error's text and
 * time where the table has those columns. Several claims' texts travel in one CASE on the id.
 */
export function failureSet(
  q: QueueTable,
  group: readonly Record<string, unknown>[],
  errorOf: ((claim: object) => unknown) | undefined,
): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  if (q.has.claimToken) set[q.f.attempts] = plusOne(q, q.f.attempts);
  if (errorOf && (q.has.lastError || q.has.lastErrorAt)) {
    const texts = group.map((claim) => {
      const error = errorOf(claim);
      return error === undefined ? null : errorText(error);
    });
    if (q.has.lastError) set[q.f.lastError] = caseOnId(q, group, texts);
    if (q.has.lastErrorAt) set[q.f.lastErrorAt] = sql.now();
  }
  if (q.has.attemptHistory) {
    // The attempt's number as the claim saw it: without a token the claim has already counted it.
    const extra = q.has.claimToken ? 1 : 0;
    // The settlement runs a statement per claim where the table keeps histories (see requeue).
    const [claim] = group;
    if (group.length !== 1 || !claim) throw new Error("attemptHistory is written one claim per statement");
    set[q.f.attemptHistory] = historyValue(withAttempt(q, claim, Number(claim[q.f.attempts]) + extra, errorOf?.(claim)));
  }
  return set;
}

function caseOnId(q: QueueTable, group: readonly Record<string, unknown>[], texts: readonly (string | null)[]): unknown {
  if (texts.every((t) => t === texts[0])) return texts[0] ?? null;
  return perClaim(
    q,
    group,
    texts.map((text) => fn.val(text, "text")),
  );
}
