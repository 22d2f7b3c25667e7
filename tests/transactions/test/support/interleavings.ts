import fc from "fast-check";
import type { TransactionHandle } from "tempest-db-js";
import { deleteFrom, insert } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Opened, Target } from "./targets.js";
import { Entry } from "./targets.js";

/**
 * One step of a transaction callback: a fresh insert (succeeds unless the transaction already
 * failed), a duplicate of the seeded row (fails), or a nested transaction() with steps of its own.
 * A statement is awaited or left running; an awaited failure is caught or thrown out of the callback.
 */
type Step =
  | { readonly kind: "insert" | "duplicate"; readonly awaited: boolean; readonly caught: boolean }
  | { readonly kind: "nested"; readonly steps: readonly Step[]; readonly caught: boolean };

const statement = fc.record({
  kind: fc.constantFrom("insert", "insert", "duplicate") as fc.Arbitrary<"insert" | "duplicate">,
  awaited: fc.boolean(),
  caught: fc.boolean(),
});

const { step } = fc.letrec<{ step: Step }>((tie) => ({
  step: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    statement,
    fc.record({ kind: fc.constant("nested" as const), steps: fc.array(tie("step"), { maxLength: 4 }), caught: fc.boolean() }),
  ),
}));

const SEED = 0;

/** Runs the steps on a handle, as written: ids are taken in issue order. */
async function perform(handle: TransactionHandle, steps: readonly Step[], ids: { next: number }): Promise<void> {
  for (const s of steps) {
    if (s.kind === "nested") {
      const nested = handle.transaction((inner) => perform(inner, s.steps, ids));
      if (s.caught) await nested.catch(() => undefined);
      else await nested;
      continue;
    }
    const id = s.kind === "insert" ? ids.next++ : SEED;
    const result = handle.execute(insert(Entry).values({ id, value: id }));
    if (!s.awaited) continue;
    if (s.caught) await result.catch(() => undefined);
    else await result;
  }
}

interface Outcome {
  /** The callback threw (an awaited failure it did not catch). */
  readonly threw: boolean;
  /** A statement failed at this level. */
  readonly failed: boolean;
  /** Ids this level would commit (its own and those of released savepoints). */
  readonly written: readonly number[];
}

/**
 * The documented rule, step by step: statements run in issue order; one that fails marks its level
 * failed, and every later statement of that level is refused unsent; a nested transaction on a failed
 * level is refused before its callback runs; a level that failed or threw is rolled back whole.
 */
function model(steps: readonly Step[], ids: { next: number }): Outcome {
  let failed = false;
  const written: number[] = [];
  for (const s of steps) {
    let rejected: boolean;
    if (s.kind === "nested") {
      if (failed) rejected = true;
      else {
        const inner = model(s.steps, ids);
        rejected = inner.threw || inner.failed;
        if (!rejected) written.push(...inner.written);
      }
      if (rejected && !s.caught) return { threw: true, failed, written };
      continue;
    }
    const id = s.kind === "insert" ? ids.next++ : SEED;
    if (failed) rejected = true;
    else if (s.kind === "duplicate") {
      failed = true;
      rejected = true;
    } else {
      written.push(id);
      rejected = false;
    }
    if (rejected && s.awaited && !s.caught) return { threw: true, failed, written };
  }
  return { threw: false, failed, written };
}

export function interleavingProperty(target: Target): void {
  describe(`${target.label}: random interleavings of awaited and unawaited statements`, () => {
    let db: Opened;
    beforeAll(async () => {
      db = await target.open();
    });
    afterAll(() => db.close());

    it("end exactly as the rule says, one statement at a time", async () => {
      const runs = process.env.CI ? 25 : Number(process.env.TEMPEST_PROPERTY_RUNS ?? 100);
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
          await db.engine.execute(deleteFrom(Entry).allRows());
          await db.engine.execute(insert(Entry).values({ id: SEED, value: SEED }));
          db.traffic.maxInFlight = 0;
          const expected = model(steps, { next: 1 });
          const settled = await db.engine
            .transaction((tx) => perform(tx, steps, { next: 1 }))
            .then(
              () => "committed",
              () => "rolled back",
            );
          const committed = !expected.threw && !expected.failed;
          expect(settled).toBe(committed ? "committed" : "rolled back");
          const ids = (await db.rows()).map((row) => row.id);
          expect(ids).toEqual([SEED, ...(committed ? [...expected.written].sort((a, b) => a - b) : [])]);
          expect(db.traffic.maxInFlight).toBe(1);
        }),
        { numRuns: runs },
      );
    });
  });
}
