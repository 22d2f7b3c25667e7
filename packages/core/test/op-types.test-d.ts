import { describe, expectTypeOf, test } from "vitest";
import type { Operator } from "../src/index.js";
import { op, select, sql } from "../src/index.js";
import { Outbound } from "./support/outbound.js";

declare const ids: string[];

describe("op helpers", () => {
  test("each helper takes the field's type or an expression", () => {
    select(Outbound).where({ attempts: op.gt(1), consumer: op.ne("billing"), nextAttemptAt: op.lte(sql.now()) });
    select(Outbound).where({ attempts: op.between(1, 3), id: op.in(ids), consumer: op.notIn(["a"]) });
    select(Outbound).where({ status: op.eq("queued"), idempotencyKey: op.isNull(false), consumer: op.like("b%") });
    select(Outbound).where({ id: op.in(select(Outbound).asSubquery("id")) });
    expectTypeOf(op.ne("x")).toEqualTypeOf<Operator<string>>();
    expectTypeOf(op.gt(sql.now())).toEqualTypeOf<Operator<never>>();
  });

  test("a helper of the wrong type, or an object shaped like one, does not compile", () => {
    // @ts-expect-error a string operand on an integer field
    select(Outbound).where({ attempts: op.gt("1") });
    // @ts-expect-error like on an integer field
    select(Outbound).where({ attempts: op.like("1%") });
    // @ts-expect-error a status outside the enum
    select(Outbound).where({ status: op.eq("lost") });
    // @ts-expect-error an object literal is no Operator
    const forged: Operator<string> = { op: "ne", operand: "x" };
    void forged;
  });
});
