import { UnsupportedFeatureError, ValidationError } from "tempest-db-js";
import { describe, expect, it } from "vitest";
import type { MigrationPlan } from "../../src/index.js";
import { applyPlan, DestructiveChangeError, diffSchemas, reversePlan, sameSchema } from "../../src/index.js";
import { col, fk, idCol, idx, snap, sqliteAlters, table } from "../snapshot-fixtures.js";

const labels = (plan: MigrationPlan) => plan.changes.map((c) => c.label);
const kinds = (plan: MigrationPlan) => plan.changes.map((c) => c.change.kind);

/** Every plan in these tests must lead exactly to its target, and its reverse back. */
function checked(plan: MigrationPlan): MigrationPlan {
  expect(sameSchema(applyPlan(plan.from, plan.changes), plan.to)).toBe(true);
  expect(sameSchema(applyPlan(plan.to, reversePlan(plan).changes), plan.from)).toBe(true);
  return plan;
}

const users = table("users", [idCol(), col("email", "varchar", { length: 100, notNull: true })]);
const tickets = table("tickets", [idCol(), col("title"), col("user_id", "integer")], {
  foreignKeys: [fk("tickets_user_id_fkey", ["user_id"], "users")],
});

describe("diffSchemas", () => {
  it("finds nothing to do between a schema and itself", () => {
    const schema = snap([users, tickets]);
    const plan = diffSchemas(schema, schema);
    expect(plan.changes).toEqual([]);
    expect(plan.hints).toEqual([]);
  });

  it("creates referenced tables first, indexes as their own changes", () => {
    const withIndex = table("tickets", tickets.columns, { foreignKeys: tickets.foreignKeys, indexes: [idx("tickets_title", ["title"])] });
    const plan = checked(diffSchemas(snap([]), snap([withIndex, users])));
    expect(labels(plan)).toEqual(["create table users", "create table tickets", "create index tickets.tickets_title"]);
    const create = plan.changes[1]?.change;
    expect(create?.kind === "createTable" && create.table.indexes).toEqual([]);
    expect(plan.changes.every((c) => c.destructive.length === 0)).toBe(true);
  });

  it("adds the foreign keys of tables that reference each other after creating them", () => {
    const a = table("a", [idCol(), col("b_id", "integer")], { foreignKeys: [fk("a_b_id_fkey", ["b_id"], "b")] });
    const b = table("b", [idCol(), col("a_id", "integer")], { foreignKeys: [fk("b_a_id_fkey", ["a_id"], "a")] });
    const plan = checked(diffSchemas(snap([]), snap([a, b])));
    expect(labels(plan)).toEqual(["create table a", "create table b", "add foreign key a.a_b_id_fkey", "add foreign key b.b_a_id_fkey"]);
    // SQLite cannot add one later, and does not check references at CREATE TABLE: they stay inline.
    const sqlite = checked(diffSchemas(snap([], "SQLite"), snap([a, b], "SQLite"), { capabilities: sqliteAlters }));
    expect(labels(sqlite)).toEqual(["create table a", "create table b"]);
  });

  it("refuses a drop unless it is allowed by name", () => {
    const from = snap([users, tickets]);
    const to = snap([users]);
    let error: unknown;
    try {
      diffSchemas(from, to);
    } catch (e) {
      error = e;
    }
    expect(DestructiveChangeError.isInstance(error)).toBe(true);
    const refused = error as DestructiveChangeError;
    expect(refused.refused.map((m) => m.label)).toEqual(["drop table tickets"]);
    expect(refused.message).toContain('allowDestructive: ["drop table tickets"]');
    expect(refused.plan.changes.map((c) => c.label)).toEqual(["drop table tickets"]);
    const plan = checked(diffSchemas(from, to, { allowDestructive: ["drop table tickets"] }));
    expect(plan.changes[0]?.destructive).toEqual([{ label: "drop table tickets", reason: "drops the table and every row in it" }]);
  });

  it("drops referencing tables first, and foreign keys of surviving tables before their target", () => {
    const plan = checked(diffSchemas(snap([users, tickets]), snap([]), { allowDestructive: "all" }));
    expect(labels(plan)).toEqual(["drop table tickets", "drop table users"]);
    const keep = table("tickets", [idCol(), col("title")]);
    const partial = checked(
      diffSchemas(snap([users, tickets]), snap([keep]), {
        allowDestructive: ["drop table users", "drop column tickets.user_id", "drop foreign key tickets.tickets_user_id_fkey"],
      }),
    );
    expect(labels(partial)).toEqual(["drop foreign key tickets.tickets_user_id_fkey", "drop table users", "drop column tickets.user_id"]);
  });

  it("drops the foreign keys between dropped tables that reference each other first", () => {
    const a = table("a", [idCol(), col("b_id", "integer")], { foreignKeys: [fk("a_b_id_fkey", ["b_id"], "b")] });
    const b = table("b", [idCol(), col("a_id", "integer")], { foreignKeys: [fk("b_a_id_fkey", ["a_id"], "a")] });
    const plan = checked(diffSchemas(snap([a, b]), snap([]), { allowDestructive: ["drop table a", "drop table b"] }));
    expect(labels(plan)).toEqual(["drop foreign key b.b_a_id_fkey", "drop foreign key a.a_b_id_fkey", "drop table b", "drop table a"]);
  });

  it("adds, drops and alters columns, marking only what may lose data", () => {
    const before = table("tickets", [
      idCol(),
      col("title", "varchar", { length: 50 }),
      col("body", "varchar", { length: 500 }),
      col("priority", "integer"),
      col("legacy"),
      col("status", "enum", { enumValues: ["open", "closed", "spam"] }),
    ]);
    const after = table("tickets", [
      idCol(),
      col("title", "varchar", { length: 200 }),
      col("body", "varchar", { length: 100 }),
      col("priority", "bigint", { notNull: true, default: { kind: "value", value: "0" } }),
      col("status", "enum", { enumValues: ["open", "closed"] }),
      col("due_at", "datetime"),
    ]);
    expect(() => diffSchemas(snap([before]), snap([after]))).toThrow(DestructiveChangeError);
    const plan = checked(diffSchemas(snap([before]), snap([after]), { allowDestructive: "all" }));
    expect(labels(plan)).toEqual([
      "drop column tickets.legacy",
      "alter column tickets.title",
      "alter column tickets.body",
      "alter column tickets.priority",
      "alter column tickets.status",
      "add column tickets.due_at",
    ]);
    expect(plan.changes.map((c) => c.destructive.map((m) => m.reason))).toEqual([
      ["drops the column and its data"],
      [],
      ["shortens varchar(500) to varchar(100)"],
      ["sets NOT NULL: rows holding NULL make it fail"],
      ["removes 1 enum value: rows holding them fail"],
      [],
    ]);
    expect(plan.hints).toEqual([]);
  });

  it("calls a type change it does not know to be a widening destructive", () => {
    const plan = diffSchemas(snap([table("t", [idCol(), col("n")])]), snap([table("t", [idCol(), col("n", "integer")])]), {
      allowDestructive: "all",
    });
    expect(plan.changes[0]?.destructive.map((m) => m.reason)).toEqual(["changes the type from text to integer: values may not convert"]);
    const widen = diffSchemas(
      snap([table("t", [idCol(), col("n", "integer")])]),
      snap([table("t", [idCol(), col("n", "numeric", { precision: 12, scale: 2 })])]),
    );
    expect(widen.changes[0]?.destructive).toEqual([]);
  });

  it("never guesses a rename, but hints at one", () => {
    const before = table("tickets", [idCol(), col("subject")]);
    const after = table("tickets", [idCol(), col("title")]);
    const guessed = diffSchemas(snap([before]), snap([after]), { allowDestructive: "all" });
    expect(labels(guessed)).toEqual(["drop column tickets.subject", "add column tickets.title"]);
    expect(guessed.hints).toEqual([{ kind: "column", table: "tickets", from: "subject", to: "title" }]);
    const declared = checked(diffSchemas(snap([before]), snap([after]), { renames: { columns: { "tickets.subject": "title" } } }));
    expect(labels(declared)).toEqual(["rename column tickets.subject to title"]);
    expect(declared.hints).toEqual([]);
  });

  it("renames tables and their columns, keeping indexes and foreign keys that follow the rename", () => {
    const before = snap([
      users,
      table("tickets", [idCol(), col("subject"), col("user_id", "integer")], {
        indexes: [idx("tickets_subject", ["subject"])],
        foreignKeys: [fk("tickets_user_id_fkey", ["user_id"], "users")],
      }),
    ]);
    const after = snap([
      table("accounts", users.columns),
      table("issues", [idCol(), col("title"), col("account_id", "integer")], {
        indexes: [idx("tickets_subject", ["title"])],
        foreignKeys: [fk("tickets_user_id_fkey", ["account_id"], "accounts")],
      }),
    ]);
    const unrenamed = diffSchemas(before, after, { allowDestructive: "all" });
    expect(unrenamed.hints).toContainEqual({ kind: "table", from: "users", to: "accounts" });
    const plan = checked(
      diffSchemas(before, after, {
        renames: {
          tables: { users: "accounts", tickets: "issues" },
          columns: { "issues.subject": "title", "tickets.user_id": "account_id" },
        },
      }),
    );
    expect(labels(plan)).toEqual([
      "rename table users to accounts",
      "rename table tickets to issues",
      "rename column issues.subject to title",
      "rename column issues.user_id to account_id",
    ]);
  });

  it("orders renames so that no name is taken twice, and refuses a cycle", () => {
    const before = snap([table("t", [idCol(), col("a"), col("b")])]);
    const after = snap([table("t", [idCol(), col("b"), col("c")])]);
    const plan = checked(diffSchemas(before, after, { renames: { columns: { "t.a": "b", "t.b": "c" } } }));
    expect(labels(plan)).toEqual(["rename column t.b to c", "rename column t.a to b"]);
    expect(() =>
      diffSchemas(before, snap([table("t", [idCol(), col("b"), col("a")])]), { renames: { columns: { "t.a": "b", "t.b": "a" } } }),
    ).toThrow(/cycle/);
  });

  it("drops a column whose name a declared rename takes over", () => {
    const before = snap([table("t", [idCol(), col("title"), col("subject")])]);
    const after = snap([table("t", [idCol(), col("title")])]);
    const plan = checked(
      diffSchemas(before, after, { renames: { columns: { "t.subject": "title" } }, allowDestructive: ["drop column t.title"] }),
    );
    expect(labels(plan)).toEqual(["drop column t.title", "rename column t.subject to title"]);
  });

  it("refuses renames that name what does not exist", () => {
    const schema = snap([table("t", [idCol(), col("a")])]);
    const other = snap([table("u", [idCol(), col("b")])]);
    expect(() => diffSchemas(schema, other, { renames: { tables: { nope: "u" } } })).toThrow(ValidationError);
    expect(() => diffSchemas(schema, other, { renames: { tables: { t: "v" } } })).toThrow(/target schema has no table "v"/);
    expect(() => diffSchemas(schema, other, { renames: { tables: { t: "u" }, columns: { "t.x": "b" } } })).toThrow(/has no column "x"/);
    expect(() => diffSchemas(schema, other, { renames: { tables: { t: "u" }, columns: { "t.a": "y" } } })).toThrow(/has no column "y"/);
    expect(() => diffSchemas(schema, other, { renames: { columns: { a: "b" } } })).toThrow(/table\.column/);
  });

  it("recreates a changed index and marks only a removed one", () => {
    const before = snap([table("t", [idCol(), col("a"), col("b")], { indexes: [idx("t_a", ["a"]), idx("t_b", ["b"], { unique: true })] })]);
    const after = snap([
      table("t", [idCol(), col("a"), col("b")], { indexes: [idx("t_a", ["a", "b"]), idx("t_c", ["b"], { where: '"b" IS NOT NULL' })] }),
    ]);
    const plan = checked(diffSchemas(before, after, { allowDestructive: ["drop index t.t_b"] }));
    expect(labels(plan)).toEqual(["drop index t.t_a", "drop index t.t_b", "create index t.t_a", "create index t.t_c"]);
    expect(plan.changes.map((c) => c.destructive.length)).toEqual([0, 1, 0, 0]);
  });

  it("drops and adds a foreign key whose action changes", () => {
    const changed = table("tickets", tickets.columns, {
      foreignKeys: [fk("tickets_user_id_fkey", ["user_id"], "users", { onDelete: "cascade" })],
    });
    const plan = checked(diffSchemas(snap([users, tickets]), snap([users, changed])));
    expect(labels(plan)).toEqual(["drop foreign key tickets.tickets_user_id_fkey", "add foreign key tickets.tickets_user_id_fkey"]);
    expect(plan.changes.every((c) => c.destructive.length === 0)).toBe(true);
    const added = checked(diffSchemas(snap([users, table("tickets", tickets.columns)]), snap([users, tickets])));
    expect(added.changes.map((c) => c.change)).toEqual([
      { kind: "addForeignKey", table: "tickets", foreignKey: tickets.foreignKeys[0], notValid: false },
    ]);
  });

  it("matches unnamed foreign keys (SQLite) by meaning", () => {
    const a = table("tickets", tickets.columns, { foreignKeys: [fk(null, ["user_id"], "users")] });
    expect(diffSchemas(snap([users, a], "SQLite"), snap([users, a], "SQLite"), { capabilities: sqliteAlters }).changes).toEqual([]);
  });

  it("rebuilds a SQLite table for what ALTER cannot do, keeping the marks and renaming natively first", () => {
    const before = table("tickets", [idCol(), col("subject"), col("priority", "integer"), col("user_id", "integer")], {
      indexes: [idx("tickets_priority", ["priority"])],
      foreignKeys: [fk(null, ["user_id"], "users")],
    });
    const after = table(
      "tickets",
      [idCol(), col("title", "text", { notNull: true }), col("priority", "integer"), col("due_at", "datetime")],
      {
        indexes: [idx("tickets_priority", ["priority"]), idx("tickets_due", ["due_at"])],
      },
    );
    const from = snap([users, before], "SQLite");
    const to = snap([users, after], "SQLite");
    const options = { capabilities: sqliteAlters, renames: { columns: { "tickets.subject": "title" } } };
    expect(() => diffSchemas(from, to, options)).toThrow(DestructiveChangeError);
    const plan = checked(diffSchemas(from, to, { ...options, allowDestructive: "all" }));
    expect(kinds(plan)).toEqual(["renameColumn", "rebuildTable"]);
    const rebuild = plan.changes[1];
    expect(rebuild?.change.kind === "rebuildTable" && rebuild.change.columnMap).toEqual({
      id: "id",
      title: "title",
      priority: "priority",
      due_at: null,
    });
    expect(rebuild?.change.kind === "rebuildTable" && rebuild.change.before.columns.map((c) => c.name)).toEqual([
      "id",
      "title",
      "priority",
      "user_id",
    ]);
    expect(rebuild?.destructive.map((m) => m.label).sort()).toEqual([
      "alter column tickets.title",
      "drop column tickets.user_id",
      "drop foreign key tickets.tickets_user_id_fkey",
    ]);
  });

  it("does on SQLite with ALTER what SQLite can ALTER", () => {
    const before = snap([table("t", [idCol(), col("a"), col("b")], { indexes: [idx("t_a", ["a"])] })], "SQLite");
    const after = snap(
      [table("t", [idCol(), col("a"), col("c", "integer", { default: { kind: "value", value: 1 } })], { indexes: [idx("t_c", ["c"])] })],
      "SQLite",
    );
    const plan = checked(diffSchemas(before, after, { capabilities: sqliteAlters, allowDestructive: "all" }));
    expect(labels(plan)).toEqual(["drop index t.t_a", "drop column t.b", "add column t.c", "create index t.t_c"]);
  });

  it("changes a primary key by a rebuild on SQLite and refuses it elsewhere", () => {
    const before = table("t", [idCol(), idCol("k")]);
    const after = table("t", [idCol(), idCol("k")], { primaryKey: ["id", "k"] });
    expect(() => diffSchemas(snap([before]), snap([after]))).toThrow(UnsupportedFeatureError);
    const plan = checked(diffSchemas(snap([before], "SQLite"), snap([after], "SQLite"), { capabilities: sqliteAlters }));
    expect(kinds(plan)).toEqual(["rebuildTable"]);
  });

  it("refuses snapshots of two dialects, and a target that references a missing table", () => {
    expect(() => diffSchemas(snap([]), snap([], "SQLite"))).toThrow(/PostgreSQL schema against a SQLite/);
    expect(() => diffSchemas(snap([]), snap([tickets]))).toThrow(/missing table users/);
  });
});

describe("reversePlan", () => {
  it("undoes each change, last first, with the down plan's own marks", () => {
    const from = snap([users]);
    const to = snap([
      users,
      table("tickets", tickets.columns, { foreignKeys: tickets.foreignKeys, indexes: [idx("tickets_title", ["title"])] }),
    ]);
    const plan = checked(diffSchemas(from, to));
    const down = reversePlan(plan);
    expect(down.from).toBe(to);
    expect(down.to).toBe(from);
    expect(labels(down)).toEqual(["drop index tickets.tickets_title", "drop table tickets"]);
    expect(down.changes[1]?.destructive.map((m) => m.label)).toEqual(["drop table tickets"]);
    expect(() => reversePlan(plan, { allowDestructive: [] })).toThrow(DestructiveChangeError);
    // A drop carries what it dropped: the reverse of the down plan recreates the table and its index.
    const up = reversePlan(down);
    expect(sameSchema(applyPlan(from, up.changes), to)).toBe(true);
  });
});
