import type { SchemaChange } from "tempest-db-js";
import { describe, expect, it } from "vitest";
import type { LockLintOptions, MigrationPlan } from "../../src/index.js";
import { applyPlan, diffSchemas, LockSafetyError, lintLocks, reversePlan, safePlan, sameSchema } from "../../src/index.js";
import { col, fk, idCol, idx, snap, table } from "../snapshot-fixtures.js";

const postgres = { concurrentIndexes: true, notValidConstraints: true };
const busy = { tickets: { hasRows: true }, users: { hasRows: true } };
const options: LockLintOptions = { capabilities: postgres, facts: busy };

const users = table("users", [idCol()]);
const tickets = table("tickets", [idCol(), col("title"), col("user_id", "integer"), col("priority", "integer")]);

function planTo(after: typeof tickets, allow: "all" | undefined = "all"): MigrationPlan {
  return diffSchemas(snap([users, tickets]), snap([users, after]), { allowDestructive: allow });
}

const kinds = (plan: MigrationPlan) => plan.changes.map((c) => c.change.kind);

describe("lintLocks on PostgreSQL", () => {
  it("flags CREATE INDEX without CONCURRENTLY on a table with rows, and builds it concurrently", () => {
    const plan = planTo(table("tickets", tickets.columns, { indexes: [idx("tickets_title", ["title"])] }));
    const [warning, ...more] = lintLocks(plan, options);
    expect(more).toEqual([]);
    expect(warning).toMatchObject({
      rule: "index-not-concurrent",
      table: "tickets",
      lock: "SHARE",
      blocks: "writes",
      fixable: true,
      index: 0,
    });
    expect(warning?.message).toBe(
      "create index tickets.tickets_title: CREATE INDEX tickets_title reads the whole table while writes wait (SHARE on tickets, blocks writes). Safe: CREATE INDEX CONCURRENTLY, outside a transaction (SHARE UPDATE EXCLUSIVE: reads and writes go on) — safePlan() writes it.",
    );
    const safe = safePlan(plan, options);
    expect(safe.changes.map((c) => c.change)).toEqual([
      { kind: "createIndex", table: "tickets", index: idx("tickets_title", ["title"]), concurrently: true },
    ]);
    expect(lintLocks(safe, options)).toEqual([]);
  });

  it("leaves empty and new tables alone", () => {
    const plan = planTo(table("tickets", tickets.columns, { indexes: [idx("tickets_title", ["title"])] }));
    expect(lintLocks(plan, { ...options, facts: { tickets: { hasRows: false } } })).toEqual([]);
    const created = diffSchemas(snap([]), snap([table("fresh", [idCol(), col("a")], { indexes: [idx("fresh_a", ["a"])] })]));
    expect(kinds(created)).toEqual(["createTable", "createIndex"]);
    expect(lintLocks(created, { capabilities: postgres, facts: {} })).toEqual([]);
  });

  it("follows a renamed table to its facts, and assumes rows in a table it knows nothing of", () => {
    const from = snap([table("tickets", tickets.columns)]);
    const to = snap([table("issues", tickets.columns, { indexes: [idx("issues_title", ["title"])] })]);
    const plan = diffSchemas(from, to, { renames: { tables: { tickets: "issues" } } });
    expect(lintLocks(plan, { capabilities: postgres, facts: { tickets: { hasRows: false } } })).toEqual([]);
    expect(lintLocks(plan, { capabilities: postgres, facts: { tickets: { hasRows: true } } }).map((w) => w.table)).toEqual(["issues"]);
    expect(lintLocks(plan, { capabilities: postgres, facts: {} }).map((w) => w.rule)).toEqual(["index-not-concurrent"]);
  });

  it("flags DROP INDEX and drops it concurrently", () => {
    const from = snap([users, table("tickets", tickets.columns, { indexes: [idx("tickets_title", ["title"])] })]);
    const plan = diffSchemas(from, snap([users, tickets]), { allowDestructive: "all" });
    expect(lintLocks(plan, options).map((w) => [w.rule, w.lock, w.blocks])).toEqual([
      ["drop-index-not-concurrent", "ACCESS EXCLUSIVE", "reads and writes"],
    ]);
    expect(safePlan(plan, options).changes.map((c) => c.change.kind === "dropIndex" && c.change.concurrently)).toEqual([true]);
  });

  it("flags a foreign key validated at once on both tables, and splits it into NOT VALID and VALIDATE", () => {
    const plan = planTo(table("tickets", tickets.columns, { foreignKeys: [fk("tickets_user_id_fkey", ["user_id"], "users")] }));
    const [warning] = lintLocks(plan, options);
    expect(warning).toMatchObject({
      rule: "foreign-key-validated-at-once",
      table: "tickets",
      alsoLocks: ["users"],
      lock: "SHARE ROW EXCLUSIVE",
      blocks: "writes",
    });
    expect(warning?.message).toContain("SHARE ROW EXCLUSIVE on tickets and users");
    const safe = safePlan(plan, options);
    expect(safe.changes.map((c) => c.change)).toEqual([
      { kind: "addForeignKey", table: "tickets", foreignKey: fk("tickets_user_id_fkey", ["user_id"], "users"), notValid: true },
      { kind: "validateConstraint", table: "tickets", name: "tickets_user_id_fkey" },
    ]);
    expect(lintLocks(safe, options)).toEqual([]);
  });

  it("flags SET NOT NULL and proves it with a validated check first", () => {
    const after = table("tickets", [
      idCol(),
      col("title", "text", { notNull: true }),
      col("user_id", "integer"),
      col("priority", "integer"),
    ]);
    const plan = planTo(after);
    expect(lintLocks(plan, options).map((w) => [w.rule, w.lock, w.touchesEveryRow])).toEqual([
      ["set-not-null-scans", "ACCESS EXCLUSIVE", "scan"],
    ]);
    const safe = safePlan(plan, options);
    expect(safe.changes.map((c) => c.label)).toEqual([
      "add check tickets.tickets_title_not_null",
      "validate constraint tickets.tickets_title_not_null",
      "alter column tickets.title",
      "drop check tickets.tickets_title_not_null",
    ]);
    expect(safe.changes[0]?.change).toEqual({
      kind: "addCheck",
      table: "tickets",
      name: "tickets_title_not_null",
      notNullOf: "title",
      notValid: true,
    });
    // The destructive mark stays with the change that sets NOT NULL.
    expect(safe.changes.map((c) => c.destructive.length)).toEqual([0, 0, 1, 0]);
    expect(lintLocks(safe, options)).toEqual([]);
    expect(sameSchema(applyPlan(plan.from, safe.changes), plan.to)).toBe(true);
  });

  it("keeps a type change apart from its NOT NULL, and reports the rewrite it cannot avoid", () => {
    const after = table("tickets", [idCol(), col("title"), col("user_id", "integer"), col("priority", "bigint", { notNull: true })]);
    const plan = planTo(after);
    expect(lintLocks(plan, options).map((w) => w.rule)).toEqual(["type-change-rewrites", "set-not-null-scans"]);
    const safe = safePlan(plan, options);
    expect(safe.changes.map((c) => c.change.kind)).toEqual(["alterColumn", "addCheck", "validateConstraint", "alterColumn", "dropCheck"]);
    const remaining = lintLocks(safe, options);
    expect(remaining.map((w) => [w.rule, w.index, w.fixable])).toEqual([["type-change-rewrites", 0, false]]);
    expect(remaining[0]?.safeAlternative).toMatch(/add a new column of the new type, backfill/);
    expect(sameSchema(applyPlan(plan.from, safe.changes), plan.to)).toBe(true);
  });

  it("knows which type changes do not rewrite", () => {
    const before = table("t", [
      idCol(),
      col("v", "varchar", { length: 10 }),
      col("n", "numeric", { precision: 8, scale: 2 }),
      col("e", "enum", { enumValues: ["a"] }),
    ]);
    const wider = table("t", [idCol(), col("v", "text"), col("n", "numeric", { precision: 12, scale: 2 }), col("e", "text")]);
    const plan = diffSchemas(snap([before]), snap([wider]));
    expect(lintLocks(plan, { capabilities: postgres, facts: { t: { hasRows: true } } })).toEqual([]);
    const narrower = table("t", [
      idCol(),
      col("v", "varchar", { length: 5 }),
      col("n", "numeric", { precision: 12, scale: 4 }),
      col("e", "enum", { enumValues: ["a", "b"] }),
    ]);
    const risky = diffSchemas(snap([before]), snap([narrower]), { allowDestructive: "all" });
    expect(lintLocks(risky, { capabilities: postgres, facts: { t: { hasRows: true } } }).map((w) => w.rule)).toEqual([
      "type-change-rewrites",
      "type-change-rewrites",
    ]);
  });

  it("flags a volatile default on ADD COLUMN, not a constant or now()", () => {
    const added = (extra: Parameters<typeof col>[2]) => planTo(table("tickets", [...tickets.columns, col("extra", "uuid", extra)]));
    expect(lintLocks(added({ default: { kind: "random" } }), options).map((w) => [w.rule, w.touchesEveryRow])).toEqual([
      ["volatile-default-rewrites", "rewrite"],
    ]);
    expect(lintLocks(added({ default: { kind: "sql", sql: "gen_random_uuid()" } }), options).map((w) => w.rule)).toEqual([
      "volatile-default-rewrites",
    ]);
    expect(lintLocks(added({ notNull: true, default: { kind: "value", value: "00000000-0000-0000-0000-000000000000" } }), options)).toEqual(
      [],
    );
    expect(lintLocks(added({ default: { kind: "sql", sql: "now()" } }), options)).toEqual([]);
    expect(lintLocks(added({ default: { kind: "sql", sql: "CURRENT_TIMESTAMP" } }), options)).toEqual([]);
    expect(lintLocks(added({ notNull: true }), options).map((w) => [w.rule, w.fixable])).toEqual([
      ["not-null-column-without-default", false],
    ]);
  });

  it("flags a UNIQUE constraint and builds it from a concurrent unique index", () => {
    const after = table("tickets", [
      idCol(),
      col("title", "text", { unique: true, notNull: true }),
      col("user_id", "integer"),
      col("priority", "integer"),
    ]);
    const plan = planTo(after);
    const warnings = lintLocks(plan, options);
    expect(warnings.map((w) => [w.rule, w.fixable])).toEqual([
      ["set-not-null-scans", true],
      ["unique-constraint-locks", true],
    ]);
    expect(warnings[1]?.safeAlternative).toContain("CREATE UNIQUE INDEX CONCURRENTLY");
    expect(warnings[1]?.safeAlternative).toContain("UNIQUE USING INDEX");
    const safe = safePlan(plan, options);
    expect(safe.changes.map((c) => c.change.kind)).toEqual([
      "addCheck",
      "validateConstraint",
      "alterColumn",
      "dropCheck",
      "addUniqueConstraint",
    ]);
    expect(safe.changes.at(-1)?.change).toMatchObject({
      name: "tickets_title_key",
      column: { name: "title", unique: false, notNull: true },
    });
    expect(lintLocks(safe, options)).toEqual([]);
    // The same schema either way, and the down plan drops the constraint (and its index) again.
    expect(applyPlan(plan.from, safe.changes)).toEqual(applyPlan(plan.from, plan.changes));
    expect(applyPlan(safe.to, reversePlan(safe).changes)).toEqual(applyPlan(plan.from, []));
    const asIndex = planTo(table("tickets", tickets.columns, { indexes: [idx("tickets_title", ["title"], { unique: true })] }));
    expect(lintLocks(safePlan(asIndex, options), options)).toEqual([]);
  });

  it("flags a check validated at once, and adds it NOT VALID then validates", () => {
    const check: SchemaChange = { kind: "addCheck", table: "tickets", name: "c", notNullOf: "title", notValid: false };
    const plan = { ...planTo(tickets), changes: [{ change: check, label: "add check tickets.c", destructive: [] }] };
    expect(lintLocks(plan, options).map((w) => [w.rule, w.lock])).toEqual([["check-validated-at-once", "ACCESS EXCLUSIVE"]]);
    expect(safePlan(plan, options).changes.map((c) => c.change.kind)).toEqual(["addCheck", "validateConstraint"]);
  });

  it("throws every warning at once with warningsAsErrors", () => {
    const plan = planTo(table("tickets", tickets.columns, { indexes: [idx("a", ["title"]), idx("b", ["priority"])] }));
    let error: unknown;
    try {
      lintLocks(plan, { ...options, warningsAsErrors: true });
    } catch (e) {
      error = e;
    }
    expect(LockSafetyError.isInstance(error)).toBe(true);
    expect((error as LockSafetyError).warnings.map((w) => w.label)).toEqual(["create index tickets.a", "create index tickets.b"]);
    expect((error as LockSafetyError).message).toContain("2 heavy locks on tables with rows");
  });
});

describe("lintLocks on MySQL/MariaDB", () => {
  it("reports the ALTERs that copy a table with rows, as the compiled statements say", () => {
    const after = table("tickets", [idCol(), col("title"), col("user_id", "integer"), col("priority", "bigint")], {
      indexes: [idx("tickets_title", ["title"])],
    });
    const plan = planTo(after);
    const copiesTable = (change: SchemaChange) => change.kind === "alterColumn";
    const warnings = lintLocks(plan, { capabilities: {}, facts: busy, copiesTable });
    expect(warnings.map((w) => [w.rule, w.label, w.blocks])).toEqual([["table-copy", "alter column tickets.priority", "writes"]]);
    expect(lintLocks(plan, { capabilities: {}, facts: { tickets: { hasRows: false } }, copiesTable })).toEqual([]);
  });
});
