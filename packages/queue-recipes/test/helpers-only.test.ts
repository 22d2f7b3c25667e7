import { op, select, ValidationError } from "tempest-db-js";
import { describe, expect, test } from "vitest";
import { Outbound } from "./support/guide-model.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("$name: the recipes' tests run on helpers-only engines", (target) => {
  test("a plain operator object is refused by the engines these tests make; a helper is not", async () => {
    const engine = engineFor(target);
    try {
      expect(() => engine.compile(select(Outbound).where({ status: { in: ["queued"] } }))).toThrow(ValidationError);
      expect(() => engine.compile(select(Outbound).where({ status: { in: ["queued"] } }))).toThrow(/Outbound\.status/);
      expect(engine.compile(select(Outbound).where({ status: op.in(["queued"]) })).sql).toMatch(/status/);
    } finally {
      await engine.close();
    }
  });
});
