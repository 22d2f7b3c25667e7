import type { DatetimeField, TruncUnit } from "../ast/datetime-node.js";
import {
  DATETIME_FIELDS,
  datetimeDiffNode,
  datetimeFieldNode,
  datetimeShiftNode,
  datetimeTruncNode,
  INTERVAL_UNITS,
  MAX_SHIFT_AMOUNT,
  TRUNC_UNITS,
} from "../ast/datetime-node.js";
import type { Expression } from "../ast/expression.js";
import { brandExpression } from "../ast/expression.js";
import { negateNode, valueType } from "../ast/expression-node.js";
import type { ValueNode } from "../ast/value-node.js";
import { nowNode, paramNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import { describe } from "./assert-bindable.js";
import type { ReadOperand } from "./string-builders.js";
import type { Operand } from "./value-type.js";
import { anyNullable, kindColumn, nodeAs } from "./value-type.js";

const NOW: Expression<Date> = brandExpression(nowNode(undefined));

function oneOf<U extends string>(units: readonly U[], value: unknown, where: string): U {
  if (typeof value !== "string" || !(units as readonly string[]).includes(value)) {
    throw new ValidationError(
      `${where}: takes one of ${units.join(", ")}, got ${typeof value === "string" ? "another string" : describe(value)}`,
    );
  }
  return value as U;
}

/**
 * The date and time builders of `fn` and `q` (docs/expressions.md#dates-and-times): datetimes
 * only (a `date` column is refused), every unit and field from a closed set checked here, so a unit
 * from a request body is a ValidationError, never SQL text.
 */
export function datetimeBuilders(operand: ReadOperand) {
  const datetime = (input: unknown, where: string): Operand => {
    const value = operand(input, where);
    const kind = value.type?.kind;
    if (kind !== undefined && kind !== "datetime") throw new ValidationError(`${where}: takes a datetime, not a ${kind} value`);
    return value;
  };
  const nodeOf = (value: Operand, where: string): ValueNode => nodeAs(value, "datetime", where);
  const typed = <T>(node: Parameters<typeof brandExpression>[0]): Expression<T> => brandExpression<T>(node);

  const shift = (sign: 1 | -1, where: string) => (input: unknown, amountInput: unknown, unitInput: unknown) => {
    const unit = oneOf(INTERVAL_UNITS, unitInput, `${where} (unit)`);
    const value = datetime(input, `${where} (datetime)`);
    const amount = operand(amountInput, `${where} (amount)`);
    let amountNode: ValueNode;
    if (amount.node === undefined) {
      const literal = typeof amount.literal === "bigint" ? Number(amount.literal) : amount.literal;
      if (literal === null) {
        amountNode = paramNode(null, kindColumn("bigint"));
      } else if (typeof literal !== "number" || !Number.isSafeInteger(literal) || Math.abs(literal) > MAX_SHIFT_AMOUNT[unit]) {
        throw new ValidationError(
          `${where} (amount): takes an integer number of ${unit} within ±${MAX_SHIFT_AMOUNT[unit]} (1,000 years); for a fraction use a smaller unit`,
        );
      } else {
        amountNode = paramNode(sign === 1 || literal === 0 ? literal : -literal, kindColumn("bigint"));
      }
    } else {
      const kind = amount.type?.kind;
      if (kind !== "integer" && kind !== "bigint") {
        throw new ValidationError(`${where} (amount): takes an integer expression, not a ${kind} one; for a fraction use a smaller unit`);
      }
      amountNode = sign === 1 ? amount.node : negateNode(amount.node, valueType(kind, anyNullable([amount])));
    }
    return typed<Date | null>(
      datetimeShiftNode(nodeOf(value, where), amountNode, unit, valueType("datetime", anyNullable([value, amount]))),
    );
  };

  return {
    now: (): Expression<Date> => NOW,
    dateTrunc: (unitInput: unknown, input: unknown) => {
      const where = "fn.dateTrunc";
      const unit: TruncUnit = oneOf(TRUNC_UNITS, unitInput, `${where} (unit)`);
      const value = datetime(input, where);
      return typed<Date | null>(datetimeTruncNode(unit, nodeOf(value, where), valueType("datetime", anyNullable([value]))));
    },
    extract: (fieldInput: unknown, input: unknown) => {
      const where = "fn.extract";
      const field: DatetimeField = oneOf(DATETIME_FIELDS, fieldInput, `${where} (field)`);
      const value = datetime(input, where);
      const kind = field === "epoch" ? "real" : "integer";
      return typed<number | null>(datetimeFieldNode(field, nodeOf(value, where), valueType(kind, anyNullable([value]))));
    },
    addInterval: shift(1, "fn.addInterval"),
    subInterval: shift(-1, "fn.subInterval"),
    diffSeconds: (a: unknown, b: unknown) => {
      const where = "fn.diffSeconds";
      const left = datetime(a, `${where} (a)`);
      const right = datetime(b, `${where} (b)`);
      return typed<number | null>(
        datetimeDiffNode(nodeOf(left, where), nodeOf(right, where), valueType("real", anyNullable([left, right]))),
      );
    },
  };
}
