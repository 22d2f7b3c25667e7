import type { DatetimeField, DatetimeNode, IntervalUnit, TruncUnit } from "../ast/datetime-node.js";
import { MAX_SHIFT_AMOUNT } from "../ast/datetime-node.js";
import type { ValueNode } from "../ast/value-node.js";
import type { ColumnKind } from "../schema/column-meta.js";
import type { CompileContext } from "./compiled-query.js";
import { exhaustive } from "./compiler-base.js";
import { WindowCompiler } from "./window-compiler.js";

/** A piece of SQL written where the hook places it; each call binds its values again (placeholders bind in order). */
export type SqlPart = () => string;

const PG_TRUNC: Readonly<Record<TruncUnit, string>> = {
  year: "year",
  month: "month",
  week: "week",
  day: "day",
  hour: "hour",
  minute: "minute",
};
const PG_FIELD: Readonly<Record<Exclude<DatetimeField, "epoch">, string>> = {
  year: "YEAR",
  month: "MONTH",
  day: "DAY",
  hour: "HOUR",
  minute: "MINUTE",
  second: "SECOND",
  isoDayOfWeek: "ISODOW",
  isoWeek: "WEEK",
  isoYear: "ISOYEAR",
};
const PG_INTERVAL: Readonly<Record<IntervalUnit, string>> = {
  milliseconds: "1 millisecond",
  seconds: "1 second",
  minutes: "1 minute",
  hours: "1 hour",
  days: "1 day",
  weeks: "7 days",
  months: "1 month",
  years: "1 year",
};

/**
 * The date and time expressions (ast/datetime-node.ts), all in UTC. The base hooks write
 * PostgreSQL, which converts to UTC explicitly (`AT TIME ZONE 'UTC'`) so that the session's
 * TimeZone never moves a day boundary; other dialects override the hooks. Units and fields are
 * closed sets mapped to constant SQL here: nothing a caller passed is ever pasted into the text.
 */
export abstract class DatetimeCompiler extends WindowCompiler {
  protected abstract operand(node: ValueNode, kind: ColumnKind, ctx: CompileContext): string;

  protected datetimeExpression(node: DatetimeNode, ctx: CompileContext): string {
    switch (node.kind) {
      case "datetimeTrunc":
        return this.datetimeTruncSql(node.unit, () => this.operand(node.operand, "datetime", ctx));
      case "datetimeField": {
        const value = () => this.operand(node.operand, "datetime", ctx);
        return node.field === "epoch" ? `(${this.floatSql(this.epochMillisSql(value))} / 1000)` : this.datetimeFieldSql(node.field, value);
      }
      case "datetimeShift":
        if ((node.unit === "months" || node.unit === "years") && !this.capabilities.calendarIntervals) {
          this.unsupported(
            `adding ${node.unit} to a datetime (calendar intervals)`,
            "Shift by days or a smaller unit, or compute the date in the application.",
          );
        }
        return this.datetimeInRangeSql(
          this.datetimeShiftSql(
            () => this.operand(node.operand, "datetime", ctx),
            () => {
              const amount = this.operand(node.amount, "bigint", ctx);
              return node.amount.kind === "param" ? amount : this.shiftAmountInRangeSql(amount, node.unit);
            },
            node.unit,
          ),
        );
      case "datetimeDiff": {
        const left = this.epochMillisSql(() => this.operand(node.left, "datetime", ctx));
        const right = this.epochMillisSql(() => this.operand(node.right, "datetime", ctx));
        return `(${this.floatSql(`(${left} - ${right})`)} / 1000)`;
      }
      default:
        return exhaustive(node);
    }
  }

  // ---- hooks (PostgreSQL) -------------------------------------------------------------------
  /** The start of the instant's year, month, ISO week (Monday), day, hour or minute, in UTC, as a datetime. */
  protected datetimeTruncSql(unit: TruncUnit, value: SqlPart): string {
    return `(DATE_TRUNC('${PG_TRUNC[unit]}', ${value()} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;
  }

  /** A field of the instant in UTC, as an integer (whole seconds for `second`). */
  protected datetimeFieldSql(field: Exclude<DatetimeField, "epoch">, value: SqlPart): string {
    return `CAST(FLOOR(EXTRACT(${PG_FIELD[field]} FROM ${value()} AT TIME ZONE 'UTC')) AS ${this.expressionTypeSql("integer")})`;
  }

  /** Milliseconds since 1970-01-01T00:00:00Z, as an exact integer. */
  protected epochMillisSql(value: SqlPart): string {
    return `CAST(EXTRACT(EPOCH FROM ${value()}) * 1000 AS BIGINT)`;
  }

  /**
   * The instant moved by `amount` (an integer) units, in UTC: months and years keep the day of the
   * month or fall back to the month's last day. Write `value` before `amount`.
   */
  protected datetimeShiftSql(value: SqlPart, amount: SqlPart, unit: IntervalUnit): string {
    return `(((${value()} AT TIME ZONE 'UTC') + ${amount()} * INTERVAL '${PG_INTERVAL[unit]}') AT TIME ZONE 'UTC')`;
  }

  /**
   * A shifted instant outside years 0001 to 9999 (UTC) as NULL, as MariaDB's DATE_ADD answers, where
   * PostgreSQL would go on into years BC or past 9999 and SQLite into year 0. The instant is written
   * once: clamped to a sentinel just outside each end, and the sentinel made NULL (a NULL stays NULL).
   */
  protected datetimeInRangeSql(sql: string): string {
    const low = "TIMESTAMPTZ '0001-12-31 23:59:59.999+00 BC'";
    const high = "TIMESTAMPTZ '10000-01-01 00:00:00+00'";
    return `NULLIF(NULLIF(GREATEST(LEAST(${sql}, ${high}), ${low}), ${high}), ${low})`;
  }

  /**
   * A computed amount past ±1,000 years of `unit` as NULL (a literal one is refused when built):
   * PostgreSQL would raise "interval out of range" or "timestamp out of range" where MariaDB and
   * SQLite answer NULL. Written once, clamped to a sentinel one past each end and the sentinel made NULL.
   */
  protected shiftAmountInRangeSql(amount: string, unit: IntervalUnit): string {
    const past = String(MAX_SHIFT_AMOUNT[unit] + 1);
    const clamped = this.extremeSql("greatest", [this.extremeSql("least", [amount, past]), `(-${past})`]);
    return `NULLIF(NULLIF(${clamped}, ${past}), (-${past}))`;
  }

  /** GREATEST / LEAST of the arguments (see ExpressionCompiler). */
  protected abstract extremeSql(fn: "greatest" | "least", args: readonly string[]): string;

  /** The type a CAST names for a kind (see ExpressionCompiler). */
  protected abstract expressionTypeSql(kind: ColumnKind): string;
}
