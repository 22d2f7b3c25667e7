import type { Expression } from "tempest-db-js";
import { sql, ValidationError } from "tempest-db-js";
import type { DueOptions } from "./operator-verb.js";
import { valueKind } from "./value-kind.js";

/** The new `nextAttemptAt` of a verb: a Date as given, or the database clock plus a delay. */
export function dueAt(options: DueOptions, verb: string, required = false): Date | Expression<Date> {
  const { at, delaySeconds } = options;
  if (at !== undefined && delaySeconds !== undefined) throw new ValidationError(`${verb}: give at or delaySeconds, not both`);
  if (at !== undefined) {
    if (!(at instanceof Date) || Number.isNaN(at.getTime()))
      throw new ValidationError(`${verb}: at must be a valid Date, got ${at instanceof Date ? "an invalid Date" : valueKind(at)}`);
    return at;
  }
  if (delaySeconds !== undefined) {
    if (typeof delaySeconds !== "number" || !Number.isFinite(delaySeconds) || delaySeconds < 0)
      throw new ValidationError(`${verb}: delaySeconds must be a finite number ≥ 0, got ${valueKind(delaySeconds)}`);
    return sql.nowPlusSeconds(delaySeconds);
  }
  if (required) throw new ValidationError(`${verb}: give the new due time, at (a Date) or delaySeconds`);
  return sql.now();
}
