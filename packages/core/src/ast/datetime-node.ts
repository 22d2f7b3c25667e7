import type { ValueType } from "./expression-node.js";
import type { ValueNode } from "./value-node.js";

/**
 * The date and time expressions (docs/expressions.md#dates-and-times). Every one reads and makes
 * instants in UTC, whatever the process's TZ and the session's time zone, so a day, a week or an
 * hour starts at the same instant on every database.
 */

/** Where `datetimeTrunc` cuts: the start of the year, month, ISO week (Monday), day, hour or minute. */
export type TruncUnit = "year" | "month" | "week" | "day" | "hour" | "minute";
export const TRUNC_UNITS: readonly TruncUnit[] = Object.freeze(["year", "month", "week", "day", "hour", "minute"]);

/**
 * A part of an instant: calendar fields, ISO weekday (Monday 1 to Sunday 7), ISO week (1 to 53) and
 * the year it belongs to, whole seconds (0 to 59), or `epoch`: seconds since 1970-01-01 with the
 * milliseconds as a fraction.
 */
export type DatetimeField = "year" | "month" | "day" | "hour" | "minute" | "second" | "isoDayOfWeek" | "isoWeek" | "isoYear" | "epoch";
export const DATETIME_FIELDS: readonly DatetimeField[] = Object.freeze([
  "year",
  "month",
  "day",
  "hour",
  "minute",
  "second",
  "isoDayOfWeek",
  "isoWeek",
  "isoYear",
  "epoch",
]);

/**
 * A unit of `datetimeShift`. Fixed lengths up to weeks (a UTC day is 86,400 seconds); months and
 * years are calendar steps that keep the day of the month, or fall back to the month's last day.
 */
export type IntervalUnit = "milliseconds" | "seconds" | "minutes" | "hours" | "days" | "weeks" | "months" | "years";
export const INTERVAL_UNITS: readonly IntervalUnit[] = Object.freeze([
  "milliseconds",
  "seconds",
  "minutes",
  "hours",
  "days",
  "weeks",
  "months",
  "years",
]);

/**
 * The largest shift per unit: 1,000 years (as sql.nowPlusSeconds). A literal amount past it is refused
 * when built; a computed one makes the shift NULL (compiler/datetime-compiler.ts), so that no
 * database is asked for an interval or an instant past the range it holds.
 */
export const MAX_SHIFT_AMOUNT: Readonly<Record<IntervalUnit, number>> = {
  milliseconds: 1000 * 365.2425 * 86_400_000,
  seconds: 1000 * 365.2425 * 86_400,
  minutes: 1000 * 365.2425 * 1440,
  hours: 1000 * 365.2425 * 24,
  days: 365_243,
  weeks: 52_178,
  months: 12_000,
  years: 1000,
};

/** An instant cut down to the start of its `unit`, in UTC. */
export interface DatetimeTruncNode {
  readonly kind: "datetimeTrunc";
  readonly unit: TruncUnit;
  readonly operand: ValueNode;
  readonly type: ValueType;
}

/** One field of an instant, in UTC. */
export interface DatetimeFieldNode {
  readonly kind: "datetimeField";
  readonly field: DatetimeField;
  readonly operand: ValueNode;
  readonly type: ValueType;
}

/** An instant moved by `amount` (an integer, negative to go back) `unit`s. */
export interface DatetimeShiftNode {
  readonly kind: "datetimeShift";
  readonly operand: ValueNode;
  readonly amount: ValueNode;
  readonly unit: IntervalUnit;
  readonly type: ValueType;
}

/** `left - right` in seconds, the milliseconds as a fraction. */
export interface DatetimeDiffNode {
  readonly kind: "datetimeDiff";
  readonly left: ValueNode;
  readonly right: ValueNode;
  readonly type: ValueType;
}

export type DatetimeNode = DatetimeTruncNode | DatetimeFieldNode | DatetimeShiftNode | DatetimeDiffNode;

// ---- factories: the only places these nodes are made; each returns a frozen node --------------

export function datetimeTruncNode(unit: TruncUnit, operand: ValueNode, type: ValueType): DatetimeTruncNode {
  return Object.freeze({ kind: "datetimeTrunc", unit, operand, type });
}

export function datetimeFieldNode(field: DatetimeField, operand: ValueNode, type: ValueType): DatetimeFieldNode {
  return Object.freeze({ kind: "datetimeField", field, operand, type });
}

export function datetimeShiftNode(operand: ValueNode, amount: ValueNode, unit: IntervalUnit, type: ValueType): DatetimeShiftNode {
  return Object.freeze({ kind: "datetimeShift", operand, amount, unit, type });
}

export function datetimeDiffNode(left: ValueNode, right: ValueNode, type: ValueType): DatetimeDiffNode {
  return Object.freeze({ kind: "datetimeDiff", left, right, type });
}
