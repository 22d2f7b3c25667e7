import { describe, expect, test } from "vitest";
import type { CompileContext, StatementNode, UpdateNode } from "../src/index.js";
import { defineCapabilities, select, update } from "../src/index.js";
import { SHAPE_CASE_KINDS, shapeCacheMismatches } from "../src/testing/index.js";
import { Outbound } from "./support/outbound.js";
import { fullCapabilities, TestCompiler } from "./support/test-dialect.js";

/**
 * A dialect may override `update` to bind one more value (the dialect guide allows it): a cache keyed
 * by the base walk would then reuse a text with three placeholders for a statement bound with two.
 */
class AuditingCompiler extends TestCompiler {
  protected override update(node: UpdateNode, ctx: CompileContext): string {
    return `${super.update(node, ctx)} /* by */ AND ${this.bind("audit", undefined, ctx)} IS NOT NULL`;
  }
}

const bump = (attempts: number) => update(Outbound).set({ attempts }).where({ consumer: "billing" }).toNode();

describe("the shape cache is a capability a dialect declares", () => {
  test("undeclared (the safe default): every statement compiles in full, so a dialect's own update binds right", () => {
    const compiler = new AuditingCompiler(defineCapabilities({ ...fullCapabilities, shapeCache: false }));
    compiler.compile(bump(1));
    const second = compiler.compile(bump(2));
    expect(second.params).toEqual([2, "billing", "audit"]);
    expect(second.sql.match(/\?/g)).toHaveLength(3);
  });

  test("declared by a dialect that breaks it: the conformance property names the mismatch", () => {
    const liar = () => new AuditingCompiler(defineCapabilities({ ...fullCapabilities, shapeCache: true }));
    const mismatches = shapeCacheMismatches(liar, "update", 20);
    expect(mismatches.length).toBeGreaterThan(0);
    expect(mismatches[0]).toMatch(/^update run \d+ \(seed 1\): cached .* but full /);
  });

  test.each(SHAPE_CASE_KINDS)("the base compiler keeps it: cached compile equals full compile (%s)", (kind) => {
    expect(shapeCacheMismatches(() => new TestCompiler(fullCapabilities), kind, 200)).toEqual([]);
  });

  test.each([true, false])("shapeCache %s: a second statement of a shape is written again only when undeclared", (shapeCache) => {
    let written = 0;
    class Counting extends TestCompiler {
      protected override statement(node: StatementNode, ctx: CompileContext): string {
        written++;
        return super.statement(node, ctx);
      }
    }
    const compiler = new Counting(defineCapabilities({ ...fullCapabilities, shapeCache }));
    const first = compiler.compile(select(Outbound).where({ consumer: "a" }).toNode());
    const second = compiler.compile(select(Outbound).where({ consumer: "b" }).toNode());
    expect(second.sql).toBe(first.sql);
    expect(second.params).toEqual(["b"]);
    expect(written).toBe(shapeCache ? 1 : 2);
  });
});
