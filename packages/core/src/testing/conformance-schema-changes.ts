import { expect, it } from "vitest";
import type { SchemaChange, SchemaStep } from "../ast/schema-change-node.js";
import type { TableDescriptionRow } from "../builder/ddl.js";
import { describeTable } from "../builder/ddl.js";
import { insert } from "../builder/insert-builder.js";
import { applySchemaChange, applySchemaSteps, schemaSteps } from "../builder/schema-steps.js";
import { select } from "../builder/select.js";
import { update } from "../builder/update-builder.js";
import type { Engine } from "../engine/engine.js";
import { ConstraintViolationError, QueryError, UnsupportedFeatureError } from "../errors.js";
import type { ColumnSnapshot, TableSnapshot } from "../schema/schema-snapshot.js";
import {
  CHILD,
  childParentKey,
  childRows,
  childTable,
  columnSnapshot,
  dropScratch,
  expectRefusal,
  freshTables,
  parentTable,
  ScChild,
  ScChildAdded,
  ScChildBig,
  ScChildCode,
  ScChildTotal,
  ScParent,
  ScRenamed,
} from "./conformance-schema-fixtures.js";

const rejects = async (work: Promise<unknown>): Promise<unknown> =>
  work.then(
    () => {
      throw new Error("expected the statement to fail");
    },
    (e: unknown) => e,
  );

const violation = async (work: Promise<unknown>) => expect(ConstraintViolationError.isInstance(await rejects(work))).toBe(true);

/**
 * The table's catalog rows, or undefined where the dialect has no describeTable (the tests then rest
 * on how the table behaves alone).
 */
async function catalog(engine: Engine, model: typeof ScChild): Promise<readonly TableDescriptionRow[] | undefined> {
  try {
    return await engine.execute(describeTable(model)).all();
  } catch (error) {
    if (UnsupportedFeatureError.isInstance(error) && /describeTable/.test(error.feature)) return undefined;
    throw error;
  }
}

async function expectIndex(engine: Engine, model: typeof ScChild, name: string, present: boolean): Promise<void> {
  const rows = await catalog(engine, model);
  if (rows) expect(rows.some((r) => r.kind === "index" && r.name === name)).toBe(present);
}

async function expectColumns(engine: Engine, model: typeof ScChild, names: readonly string[]): Promise<void> {
  const rows = await catalog(engine, model);
  if (!rows) return;
  const columns = rows
    .filter((r) => r.kind === "column")
    .sort((a, b) => Number(a.position) - Number(b.position))
    .map((r) => r.name);
  expect(columns).toEqual(names);
}

const identity = (table: TableSnapshot) => Object.fromEntries(table.columns.map((c) => [c.name, c.name]));

/**
 * Every schema change kind on the dialect's real server: applied where the dialect has it, and the
 * schema then behaves as the change says (rows kept, constraints enforced); refused with a typed
 * UnsupportedFeatureError naming the dialect, the change and a way out where it has not. SQLite's
 * missing ALTERs are proven through the table rebuild they point to.
 */
export function schemaChangeTests(engineOf: () => Engine): void {
  const caps = () => engineOf().capabilities;

  it("schema changes: createTable makes keys, defaults, enum checks and indexes; dropTable removes it", async () => {
    const engine = engineOf();
    await freshTables(engine);
    await expectIndex(engine, ScChild, "tempest_sc_child_by_parent", true);
    await violation(engine.execute(insert(ScChild).values({ id: 20, parent_id: 99 })).rowsAffected());
    await violation(engine.execute(insert(ScParent).values({ id: 3, code: "p1" })).rowsAffected());
    expect(
      QueryError.isInstance(await rejects(engine.execute(insert(ScChild).values({ id: 20, parent_id: 1, status: "c" })).rowsAffected())),
    ).toBe(true);
    await engine.execute(insert(ScChild).values({ id: 21, parent_id: 2 })).rowsAffected();
    expect(await engine.execute(select(ScChild).where({ id: 21 })).one()).toMatchObject({ status: "a" });
    await applySchemaChange(engine, { kind: "dropTable", table: childTable });
    expect(QueryError.isInstance(await rejects(childRows(engine)))).toBe(true);
    await dropScratch(engine);
  });

  it("schema changes: addColumn adds a column as CREATE TABLE defines it, with its default, UNIQUE and foreign key", async () => {
    const engine = engineOf();
    await freshTables(engine);
    const before = await childRows(engine);
    await applySchemaChange(engine, { kind: "addColumn", table: CHILD, column: columnSnapshot("extra", "text") });
    const counted = columnSnapshot("counted", "integer", { notNull: true, default: { kind: "value", value: 3 } });
    await applySchemaChange(engine, { kind: "addColumn", table: CHILD, column: counted });
    // The column's foreign key comes with it (issue 25, point 9): a child naming no parent is refused.
    const owner = columnSnapshot("owner_id", "integer");
    const ownerKey = { ...childParentKey, name: "tempest_sc_child_owner_fk", columns: ["owner_id"] };
    await applySchemaChange(engine, { kind: "addColumn", table: CHILD, column: owner, foreignKey: ownerKey });
    await expectColumns(engine, ScChild, ["id", "parent_id", "status", "amount", "note", "extra", "counted", "owner_id"]);
    expect(await childRows(engine)).toEqual(before);
    const added = await engine.execute(select(ScChildAdded).orderBy("id")).all();
    expect(added.map((r) => [r.extra, r.counted, r.owner_id])).toEqual([
      [null, 3, null],
      [null, 3, null],
      [null, 3, null],
    ]);
    await violation(engine.execute(insert(ScChildAdded).values({ id: 30, parent_id: 1, owner_id: 99 })).rowsAffected());
    await engine.execute(insert(ScChildAdded).values({ id: 31, parent_id: 1, owner_id: 2 })).rowsAffected();

    // UNIQUE comes with it too, or is refused by name where ADD COLUMN cannot add it.
    const addCode: SchemaChange = {
      kind: "addColumn",
      table: CHILD,
      column: columnSnapshot("code", "varchar", { unique: true, length: 20 }),
    };
    const applied = await appliedOrRefused(engine, addCode, /UNIQUE/);
    if (applied) {
      await engine.execute(insert(ScChildCode).values({ id: 32, parent_id: 1, code: "k" })).rowsAffected();
      await violation(engine.execute(insert(ScChildCode).values({ id: 33, parent_id: 1, code: "k" })).rowsAffected());
    }
    await dropScratch(engine);
  });

  it("schema changes: dropColumn and renameColumn keep every other value", async () => {
    const engine = engineOf();
    await freshTables(engine);
    const rename: SchemaChange = { kind: "renameColumn", table: CHILD, from: "amount", to: "total" };
    if (caps().renameColumn) {
      await applySchemaChange(engine, rename);
      const rows = await engine.execute(select(ScChildTotal).orderBy("id")).all();
      expect(rows.map((r) => ({ id: r.id, total: r.total }))).toEqual([
        { id: 10, total: 5 },
        { id: 11, total: null },
        { id: 12, total: 7 },
      ]);
    } else {
      await expectRefusal(engine, () => applySchemaChange(engine, rename), /renaming a column/);
    }
    const drop: SchemaChange = { kind: "dropColumn", table: CHILD, column: columnSnapshot("note", "text") };
    if (caps().dropColumn) {
      await applySchemaChange(engine, drop);
      await expectColumns(engine, ScChild, ["id", "parent_id", "status", caps().renameColumn ? "total" : "amount"]);
      expect(QueryError.isInstance(await rejects(childRows(engine)))).toBe(true);
    } else {
      await expectRefusal(engine, () => applySchemaChange(engine, drop), /dropping a column/);
    }
    await dropScratch(engine);
  });

  it("schema changes: renameTable keeps the rows and the foreign key", async () => {
    const engine = engineOf();
    await freshTables(engine);
    const before = await childRows(engine);
    const rename: SchemaChange = { kind: "renameTable", from: CHILD, to: ScRenamed.tablename };
    if (!caps().renameTable) {
      await expectRefusal(engine, () => applySchemaChange(engine, rename), /renaming a table/);
      return;
    }
    await applySchemaChange(engine, rename);
    expect(await engine.execute(select(ScRenamed).orderBy("id")).all()).toEqual(before);
    await violation(engine.execute(insert(ScRenamed).values({ id: 40, parent_id: 99 })).rowsAffected());
    await dropScratch(engine);
  });

  it("schema changes: alterColumn changes enum values, nullability, default and type in place, or through a rebuild", async () => {
    const engine = engineOf();
    await freshTables(engine);
    await engine.execute(update(ScChild).set({ amount: 1 }).where({ amount: null })).rowsAffected();
    const status = childTable.columns[2] as ColumnSnapshot;
    const amount = childTable.columns[3] as ColumnSnapshot;
    const statusAfter = { ...status, enumValues: ["a", "b", "c"] };
    const amountAfter = { ...amount, kind: "bigint" as const, notNull: true, default: { kind: "value" as const, value: 9 } };
    const changes: SchemaChange[] = [
      { kind: "alterColumn", table: CHILD, from: status, to: statusAfter },
      { kind: "alterColumn", table: CHILD, from: amount, to: { ...amount, notNull: true, default: { kind: "value", value: 9 } } },
      { kind: "alterColumn", table: CHILD, from: { ...amount, notNull: true, default: { kind: "value", value: 9 } }, to: amountAfter },
    ];
    if (caps().alterColumn) {
      for (const change of changes) await applySchemaChange(engine, change);
    } else {
      await expectRefusal(engine, () => applySchemaChange(engine, changes[0] as SchemaChange), /changing a column in place/);
      if (!caps().tableRebuild) return;
      const after = {
        ...childTable,
        columns: childTable.columns.map((c) => (c.name === "status" ? statusAfter : c.name === "amount" ? amountAfter : c)),
      };
      await applySchemaChange(engine, { kind: "rebuildTable", before: childTable, after, columnMap: identity(after) });
    }
    const big = await engine.execute(select(ScChildBig).orderBy("id")).all();
    expect(big.map((r) => ({ id: r.id, amount: r.amount }))).toEqual([
      { id: 10, amount: 5n },
      { id: 11, amount: 1n },
      { id: 12, amount: 7n },
    ]);
    await engine.execute(insert(ScChild).values({ id: 50, parent_id: 1, status: "c" })).rowsAffected();
    expect(await engine.execute(select(ScChildBig).where({ id: 50 })).one()).toMatchObject({ amount: 9n });
    await violation(engine.execute(insert(ScChild).values({ id: 51, parent_id: 1, amount: null })).rowsAffected());
    await expectIndex(engine, ScChild, "tempest_sc_child_by_parent", true);
    await violation(engine.execute(insert(ScChild).values({ id: 52, parent_id: 99 })).rowsAffected());
    await dropScratch(engine);
  });

  it("schema changes: createIndex and dropIndex, concurrently where the dialect can", async () => {
    const engine = engineOf();
    await freshTables(engine);
    const index = { name: "tempest_sc_child_amount", columns: ["amount"], unique: true, where: null };
    for (const concurrently of [false, true]) {
      const create: SchemaChange = { kind: "createIndex", table: CHILD, index, concurrently };
      if (concurrently && !caps().concurrentIndexes) {
        await expectRefusal(engine, () => applySchemaChange(engine, create), /CONCURRENTLY/);
        continue;
      }
      await applySchemaChange(engine, create);
      await expectIndex(engine, ScChild, index.name, true);
      await violation(engine.execute(insert(ScChild).values({ id: 60, parent_id: 1, amount: 5 })).rowsAffected());
      await applySchemaChange(engine, { kind: "dropIndex", table: CHILD, index, concurrently });
      await expectIndex(engine, ScChild, index.name, false);
    }
    await engine.execute(insert(ScChild).values({ id: 60, parent_id: 1, amount: 5 })).rowsAffected();
    await dropScratch(engine);
  });

  it("schema changes: foreign keys and checks added (NOT VALID, then validated, where the dialect can) and dropped", async () => {
    const engine = engineOf();
    await freshTables(engine);
    const amountKey = { ...childParentKey, name: "tempest_sc_child_amount_fk", columns: ["amount"], onDelete: "no action" as const };
    const notValid = caps().notValidConstraints;
    const addKey: SchemaChange = { kind: "addForeignKey", table: CHILD, foreignKey: amountKey, notValid };
    if (!caps().alterConstraints) {
      await expectRefusal(engine, () => applySchemaChange(engine, addKey), /addForeignKey/);
      await expectRefusal(
        engine,
        () => applySchemaChange(engine, { kind: "dropForeignKey", table: CHILD, foreignKey: childParentKey }),
        /dropForeignKey/,
      );
      const check: SchemaChange = { kind: "addCheck", table: CHILD, name: "tempest_sc_amount_set", notNullOf: "amount", notValid: false };
      await expectRefusal(engine, () => applySchemaChange(engine, check), /addCheck/);
      await expectRefusal(
        engine,
        () => applySchemaChange(engine, { kind: "dropCheck", table: CHILD, name: "c", notNullOf: "amount" }),
        /dropCheck/,
      );
      await expectRefusal(
        engine,
        () => applySchemaChange(engine, { kind: "validateConstraint", table: CHILD, name: "c" }),
        /validateConstraint/,
      );
      await dropScratch(engine);
      return;
    }
    await engine.execute(update(ScChild).set({ amount: 1 }).where({ id: 10 })).rowsAffected();
    await engine.execute(update(ScChild).set({ amount: 2 }).where({ id: 12 })).rowsAffected();
    await applySchemaChange(engine, addKey);
    if (notValid) await applySchemaChange(engine, { kind: "validateConstraint", table: CHILD, name: amountKey.name });
    else
      await expectRefusal(
        engine,
        () => applySchemaChange(engine, { kind: "validateConstraint", table: CHILD, name: amountKey.name }),
        /VALID/,
      );
    await violation(engine.execute(insert(ScChild).values({ id: 70, parent_id: 1, amount: 99 })).rowsAffected());
    await applySchemaChange(engine, { kind: "dropForeignKey", table: CHILD, foreignKey: amountKey });
    await engine.execute(insert(ScChild).values({ id: 70, parent_id: 1, amount: 99 })).rowsAffected();

    // A NOT NULL check: NOT VALID accepts the existing NULL, VALIDATE then refuses it until it is filled in.
    const check = { kind: "addCheck", table: CHILD, name: "tempest_sc_amount_set", notNullOf: "amount", notValid } as const;
    if (notValid) {
      await applySchemaChange(engine, check);
      expect(
        ConstraintViolationError.isInstance(
          await rejects(applySchemaChange(engine, { kind: "validateConstraint", table: CHILD, name: check.name })),
        ),
      ).toBe(true);
      await engine.execute(update(ScChild).set({ amount: 0 }).where({ amount: null })).rowsAffected();
      await applySchemaChange(engine, { kind: "validateConstraint", table: CHILD, name: check.name });
    } else {
      await engine.execute(update(ScChild).set({ amount: 0 }).where({ amount: null })).rowsAffected();
      await applySchemaChange(engine, check);
    }
    await violation(engine.execute(insert(ScChild).values({ id: 71, parent_id: 1, amount: null })).rowsAffected());
    await applySchemaChange(engine, { kind: "dropCheck", table: CHILD, name: check.name, notNullOf: "amount" });
    await engine.execute(insert(ScChild).values({ id: 71, parent_id: 1, amount: null })).rowsAffected();
    await dropScratch(engine);
  });

  it("schema changes: rebuildTable keeps every row, index and foreign key, of a table others reference too", async () => {
    const engine = engineOf();
    await freshTables(engine);
    const rebuildParent: SchemaChange = { kind: "rebuildTable", before: parentTable, after: parentTable, columnMap: identity(parentTable) };
    if (!caps().tableRebuild) {
      await expectRefusal(engine, () => applySchemaChange(engine, rebuildParent), /rebuilding a table/);
      await dropScratch(engine);
      return;
    }
    const children = await childRows(engine);
    const parents = await engine.execute(select(ScParent).orderBy("id")).all();
    // The parent (referenced by every child, ON DELETE CASCADE): dropping the old table must not touch a child.
    const wider = {
      ...parentTable,
      columns: [...parentTable.columns, columnSnapshot("rank", "integer", { notNull: true, default: { kind: "value", value: 0 } })],
    };
    await applySchemaChange(engine, {
      kind: "rebuildTable",
      before: parentTable,
      after: wider,
      columnMap: { ...identity(parentTable), rank: null },
    });
    expect(await engine.execute(select(ScParent).orderBy("id")).all()).toEqual(parents);
    expect(await childRows(engine)).toEqual(children);
    await violation(engine.execute(insert(ScParent).values({ id: 3, code: "p1" })).rowsAffected());
    await violation(engine.execute(insert(ScChild).values({ id: 80, parent_id: 99 })).rowsAffected());
    // The child, with a new foreign key its rows break: the check fails the rebuild, which rolls back whole.
    const amountKey = { ...childParentKey, name: null, columns: ["amount"], onDelete: "no action" as const };
    const broken = { ...childTable, foreignKeys: [...childTable.foreignKeys, amountKey] };
    const failed = await rejects(
      applySchemaChange(engine, { kind: "rebuildTable", before: childTable, after: broken, columnMap: identity(childTable) }),
    );
    expect(ConstraintViolationError.isInstance(failed)).toBe(true);
    expect((failed as ConstraintViolationError).kind).toBe("foreign-key-violation");
    expect(await childRows(engine)).toEqual(children);
    await expectIndex(engine, ScChild, "tempest_sc_child_by_parent", true);
    await violation(engine.execute(insert(ScChild).values({ id: 80, parent_id: 99 })).rowsAffected());
    await dropScratch(engine);
  });
}

/** Applies `change`, or asserts its typed refusal; true when it was applied. */
async function appliedOrRefused(engine: Engine, change: SchemaChange, feature: RegExp): Promise<boolean> {
  let steps: readonly SchemaStep[];
  try {
    steps = await schemaSteps(engine, change);
  } catch (error) {
    if (!UnsupportedFeatureError.isInstance(error)) throw error;
    await expectRefusal(engine, () => Promise.reject(error), feature);
    return false;
  }
  await applySchemaSteps(engine, steps);
  return true;
}
