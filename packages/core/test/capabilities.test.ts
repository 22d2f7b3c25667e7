import { describe, expect, test } from "vitest";
import {
  column,
  createIndexes,
  defineCapabilities,
  deleteFrom,
  fn,
  index,
  insert,
  Model,
  safeCapabilities,
  select,
  TempestError,
  uniqueIndex,
  update,
  ValidationError,
} from "../src/index.js";
import { IndexedOutbound, Outbound } from "./support/outbound.js";
import { refusal } from "./support/refusal.js";
import { fullCapabilities, testEngine } from "./support/test-dialect.js";

const ID = "5b1a9f43-64a8-4c43-9a7e-1b4a0f0c0a11";
const message = { id: ID, consumer: "billing", idempotencyKey: "k", status: "queued", nextAttemptAt: new Date(0) } as const;

describe("defineCapabilities", () => {
  test("every flag defaults to the safe answer", () => {
    const caps = defineCapabilities({ rowLocks: true });
    expect(caps.rowLocks).toBe(true);
    expect(caps.skipLocked).toBe(false);
    expect(caps.returningUpdate).toBe(false);
    expect(caps.maxParams).toBe(safeCapabilities.maxParams);
    expect(Object.isFrozen(caps)).toBe(true);
    expect(Object.values({ ...safeCapabilities, maxParams: false, windowsPerSelect: false }).every((v) => v === false)).toBe(true);
    expect(safeCapabilities.windowsPerSelect).toBe(1);
  });
});

describe("UnsupportedFeatureError from the base compiler", () => {
  test("row locks", () => {
    const engine = testEngine(defineCapabilities({ ...fullCapabilities, rowLocks: false }));
    const error = refusal(() => engine.compile(select(Outbound, ["id"]).forUpdate({ skipLocked: true })));
    expect(error.name).toBe("UnsupportedFeatureError");
    expect(error.code).toBe("UNSUPPORTED_FEATURE");
    expect(error.dialect).toBe("TestSQL");
    expect(error.feature).toBe("row locks (forUpdate)");
    expect(error.hint).toMatch(/transaction\(\)/);
    expect(error.message).toBe(`TestSQL does not support row locks (forUpdate). ${error.hint}`);
    expect(TempestError.isInstance(error)).toBe(true);
    expect(ValidationError.isInstance(error)).toBe(false);
  });

  test("share locks, SKIP LOCKED, NOWAIT, FOR UPDATE OF", () => {
    const flags = ["shareLocks", "skipLocked", "noWait", "lockOf"] as const;
    const queries = {
      shareLocks: select(Outbound, ["id"]).forShare(),
      skipLocked: select(Outbound, ["id"]).forUpdate({ skipLocked: true }),
      noWait: select(Outbound, ["id"]).forUpdate({ noWait: true }),
      lockOf: select(Outbound, ["id"]).forUpdate({ of: [Outbound] }),
    };
    const features = { shareLocks: "shared row locks (forShare)", skipLocked: "SKIP LOCKED", noWait: "NOWAIT", lockOf: "FOR UPDATE OF" };
    for (const flag of flags) {
      const engine = testEngine(defineCapabilities({ ...fullCapabilities, [flag]: false }));
      const error = refusal(() => engine.compile(queries[flag]));
      expect(error.feature).toBe(features[flag]);
      expect(error.hint.length).toBeGreaterThan(10);
      expect(testEngine().compile(queries[flag]).sql).toContain("FOR ");
    }
  });

  test("fn.notify where the dialect has no notifications, and its operands", () => {
    const engine = testEngine(defineCapabilities({ ...fullCapabilities, listenNotify: true }));
    const query = select(Outbound).columns(() => ({ notified: fn.notify(fn.val("queue_outbound"), fn.val("1")) }));
    const error = refusal(() => engine.compile(query));
    expect(error.feature).toBe("notifications (LISTEN/NOTIFY), fn.notify");
    expect(error.hint).toMatch(/Poll instead/);
    expect(() => fn.notify(fn.val("queue_outbound"), fn.val(1) as never)).toThrow(/fn\.notify \(payload\): takes a text/);
    expect(() => fn.notify("queue_outbound" as never, fn.val("1"))).toThrow(ValidationError);
  });

  test("RETURNING per statement kind", () => {
    const engine = testEngine(
      defineCapabilities({ ...fullCapabilities, returningInsert: false, returningUpdate: false, returningDelete: false }),
    );
    expect(refusal(() => engine.compile(insert(Outbound).values(message).returning(["id"]))).feature).toBe("RETURNING on INSERT");
    const onUpdate = refusal(() => engine.compile(update(Outbound).set({ attempts: 1 }).where({ id: ID }).returning()));
    expect(onUpdate.feature).toBe("RETURNING on UPDATE");
    expect(onUpdate.hint).toMatch(/transaction\(\)/);
    expect(refusal(() => engine.compile(deleteFrom(Outbound).where({ id: ID }).returning())).feature).toBe("RETURNING on DELETE");
    // Without returning() the same statements compile.
    expect(engine.compile(update(Outbound).set({ attempts: 1 }).where({ id: ID })).sql).not.toContain("RETURNING");
  });

  test("LIMIT inside an IN subquery names the two-step way out", () => {
    const engine = testEngine(defineCapabilities({ ...fullCapabilities, limitInSubquery: false }));
    const claim = update(Outbound)
      .set({ status: "sending" })
      .where({ id: { in: select(Outbound).where({ status: "queued" }).limit(10).forUpdate({ skipLocked: true }).asSubquery("id") } });
    const error = refusal(() => engine.compile(claim));
    expect(error.feature).toBe("LIMIT inside an IN (SELECT ...) subquery");
    expect(error.hint).toMatch(/two steps/);
    const offsetOnly = select(Outbound, ["id"]).where({ id: { in: select(Outbound).offset(1).asSubquery("id") } });
    expect(refusal(() => engine.compile(offsetOnly)).feature).toBe("LIMIT inside an IN (SELECT ...) subquery");
    // Without LIMIT the subquery is fine.
    expect(engine.compile(select(Outbound, ["id"]).where({ id: { in: select(Outbound).asSubquery("id") } })).sql).toContain("IN (SELECT");
  });

  test("conflict targets and their predicates", () => {
    const noTarget = testEngine(defineCapabilities({ ...fullCapabilities, conflictTarget: false }));
    const target = refusal(() => noTarget.compile(insert(Outbound).values(message).onConflictDoNothing(["consumer", "idempotencyKey"])));
    expect(target.feature).toBe("a conflict target (ON CONFLICT (columns))");
    expect(target.hint).toMatch(/onDuplicateKeyUpdate|ignoreDuplicates/);
    expect(noTarget.compile(insert(Outbound).values(message).ignoreDuplicates()).sql).toMatch(/ON CONFLICT DO NOTHING$/);

    const noWhere = testEngine(defineCapabilities({ ...fullCapabilities, conflictTargetWhere: false }));
    const predicate = refusal(() =>
      noWhere.compile(
        insert(Outbound)
          .values(message)
          .onConflictDoNothing(["consumer", "idempotencyKey"], { where: { idempotencyKey: { isNull: false } } }),
      ),
    );
    expect(predicate.feature).toBe("a conflict target predicate (partial unique index)");
    expect(noWhere.compile(insert(Outbound).values(message).onConflictDoNothing(["consumer", "idempotencyKey"])).sql).toContain(
      `ON CONFLICT ("consumer", "idempotency_key") DO NOTHING`,
    );
  });

  test("onDuplicateKeyUpdate follows the onDuplicateKey capability: written by the base compiler, or refused", () => {
    const query = insert(Outbound).values(message).onDuplicateKeyUpdate({ status: "queued" });
    expect(testEngine().compile(query).sql).toMatch(/ ON DUPLICATE KEY UPDATE "status" = \?$/);
    const without = testEngine(defineCapabilities({ ...fullCapabilities, onDuplicateKey: false }));
    const error = refusal(() => without.compile(query));
    expect(error.feature).toBe("ON DUPLICATE KEY UPDATE");
    expect(error.hint).toContain("onConflictDoUpdate");
  });

  test("partial indexes without the capability", () => {
    const engine = testEngine(defineCapabilities({ ...fullCapabilities, partialIndexes: false }));
    // A unique index whose predicate only excludes NULLs of its own columns enforces the same rule without it.
    expect(engine.compile(createIndexes(IndexedOutbound)[0]!).sql).toBe(
      `CREATE UNIQUE INDEX "outbound_idempotency_unique" ON "outbound_messages" ("consumer", "idempotency_key")`,
    );
    class Rule extends Model {
      static tablename = "rules";
      static indexes = [
        uniqueIndex<Rule>("one_active", ["owner"]).where({ active: true }),
        index<Rule>("active_owner", ["owner"]).where({ active: true }),
      ];
      id = column.integer().primaryKey();
      owner = column.text().notNull();
      active = column.boolean().notNull();
    }
    const [unique, plain] = createIndexes(Rule);
    const error = refusal(() => engine.compile(unique!));
    expect(error.feature).toBe("the partial unique index one_active");
    // A non-unique index only changes speed: its predicate is dropped.
    expect(engine.compile(plain!).sql).toBe(`CREATE INDEX "active_owner" ON "rules" ("owner")`);
  });

  test("too many parameters is a ValidationError naming the limit", () => {
    const engine = testEngine(defineCapabilities({ ...fullCapabilities, maxParams: 4 }));
    expect(() => engine.compile(insert(Outbound).values(message))).toThrow(ValidationError);
    expect(() => engine.compile(insert(Outbound).values(message))).toThrow(/at most 4 parameters/);
  });

  test("engine exposes the capabilities and dialect name", () => {
    const caps = defineCapabilities({ rowLocks: true });
    const engine = testEngine(caps);
    expect(engine.capabilities).toBe(caps);
    expect(engine.dialectName).toBe("TestSQL");
  });
});
