import type { DropForeignKeyChange, DropIndexChange, Engine, TableSnapshot } from "tempest-db-js";
import { introspect, sql } from "tempest-db-js";
import { columnSnapshot } from "tempest-db-js/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MARIADB_10_11, MYSQL_8_0, MysqlCompiler, mysqlCapabilities } from "../src/index.js";
import { closeEngines, testEngine } from "./support.js";

const mysql8 = new MysqlCompiler(mysqlCapabilities({ ...MYSQL_8_0, patch: 36 }));
const mariadb = new MysqlCompiler(mysqlCapabilities(MARIADB_10_11));
const texts = (compiler: MysqlCompiler, change: DropForeignKeyChange | DropIndexChange) => compiler.schemaSteps(change).map((s) => s.sql);

const key = {
  name: "kc_parent_fk",
  columns: ["parent_id"],
  referencedTable: "kc_parent",
  referencedColumns: ["id"],
  onDelete: "restrict",
} as const;
const child = (extra: Partial<TableSnapshot> = {}): TableSnapshot => ({
  name: "kc_child",
  columns: [columnSnapshot("id", "integer", { notNull: true }), columnSnapshot("parent_id", "integer"), columnSnapshot("n", "integer")],
  primaryKey: ["id"],
  indexes: [],
  foreignKeys: [key],
  ...extra,
});
const ownIndex = { name: "kc_parent_fk", columns: ["parent_id"], unique: false, where: null };
const declared = { name: "kc_by_parent", columns: ["parent_id", "n"], unique: false, where: null };

/**
 * MySQL 8 has no `DROP INDEX IF EXISTS` (nor `ADD INDEX IF NOT EXISTS`): the index InnoDB made for
 * a key is dropped with it by name, and only where the table read from the server
 * (`foreignKeyIndexes`) says it exists. MariaDB keeps IF EXISTS, for a migration run on a database
 * other than the one it was generated from.
 */
describe("the SQL that drops a key's own index, per server", () => {
  it("MySQL 8: the index the server listed, by name, without IF EXISTS", () => {
    const change: DropForeignKeyChange = {
      kind: "dropForeignKey",
      table: "kc_child",
      foreignKey: key,
      owner: child({ foreignKeyIndexes: [ownIndex] }),
    };
    expect(texts(mysql8, change)).toEqual([
      "ALTER TABLE `kc_child` DROP FOREIGN KEY `kc_parent_fk`, DROP INDEX `kc_parent_fk`, ALGORITHM=INPLACE, LOCK=NONE",
    ]);
  });

  it("MySQL 8: the key alone when the server listed no index of its own, or the table was not read", () => {
    const none: DropForeignKeyChange = {
      kind: "dropForeignKey",
      table: "kc_child",
      foreignKey: key,
      owner: child({ foreignKeyIndexes: [] }),
    };
    const unknown: DropForeignKeyChange = { kind: "dropForeignKey", table: "kc_child", foreignKey: key, owner: child() };
    for (const change of [none, unknown]) {
      expect(texts(mysql8, change)).toEqual(["ALTER TABLE `kc_child` DROP FOREIGN KEY `kc_parent_fk`, ALGORITHM=INPLACE, LOCK=NONE"]);
    }
  });

  it("MySQL 8: not the index another key of the table still needs", () => {
    const twin = { ...key, name: "kc_parent_fk2" };
    const change: DropForeignKeyChange = {
      kind: "dropForeignKey",
      table: "kc_child",
      foreignKey: key,
      owner: child({ foreignKeys: [key, twin], foreignKeyIndexes: [ownIndex] }),
    };
    expect(texts(mysql8, change)).toEqual(["ALTER TABLE `kc_child` DROP FOREIGN KEY `kc_parent_fk`, ALGORITHM=INPLACE, LOCK=NONE"]);
  });

  it("MariaDB: the listed index and both names InnoDB may use, IF EXISTS", () => {
    const change: DropForeignKeyChange = {
      kind: "dropForeignKey",
      table: "kc_child",
      foreignKey: key,
      owner: child({ foreignKeyIndexes: [ownIndex] }),
    };
    expect(texts(mariadb, change)).toEqual([
      "ALTER TABLE `kc_child` DROP FOREIGN KEY `kc_parent_fk`, DROP INDEX IF EXISTS `kc_parent_fk`, DROP INDEX IF EXISTS `parent_id`, ALGORITHM=INPLACE, LOCK=NONE",
    ]);
  });

  it("dropping the only index a key uses gives the key its own index in the same ALTER (error 1553 otherwise)", () => {
    const change: DropIndexChange = {
      kind: "dropIndex",
      table: "kc_child",
      index: declared,
      concurrently: false,
      owner: child({ indexes: [declared] }),
    };
    expect(texts(mysql8, change)).toEqual([
      "ALTER TABLE `kc_child` ADD INDEX `kc_parent_fk` (`parent_id`), DROP INDEX `kc_by_parent`, ALGORITHM=INPLACE, LOCK=NONE",
    ]);
    expect(texts(mariadb, change)).toEqual([
      "ALTER TABLE `kc_child` ADD INDEX IF NOT EXISTS `kc_parent_fk` (`parent_id`), DROP INDEX `kc_by_parent`, ALGORITHM=INPLACE, LOCK=NONE",
    ]);
  });

  it("no index of its own where something else still serves the key, or the table is not given", () => {
    const served: DropIndexChange = {
      kind: "dropIndex",
      table: "kc_child",
      index: declared,
      concurrently: false,
      owner: child({ indexes: [declared], foreignKeyIndexes: [ownIndex] }),
    };
    const unowned: DropIndexChange = { kind: "dropIndex", table: "kc_child", index: declared, concurrently: false };
    for (const change of [served, unowned]) {
      expect(texts(mysql8, change)).toEqual(["ALTER TABLE `kc_child` DROP INDEX `kc_by_parent`, ALGORITHM=INPLACE, LOCK=NONE"]);
    }
  });
});

/**
 * The statements each server path writes, run on the real server (MariaDB here: MySQL 8's plain
 * DROP INDEX is valid on it too), from the table as `introspect(engine, { foreignKeyIndexes: true })`
 * reads it.
 */
describe("a key's own index dropped on the real server", () => {
  let engine: Engine;
  const run = async (steps: readonly string[]) => {
    for (const text of steps) await engine.execute(sql.raw(text)).rowsAffected();
  };
  const indexNames = async () =>
    (
      await engine
        .execute(
          sql.raw(
            "SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'kc_child' ORDER BY 1",
          ),
        )
        .all()
    )
      .map((r) => String(r.name))
      .sort();
  const liveChild = async () => {
    const snapshot = await introspect(engine, { tables: ["kc_child"], foreignKeyIndexes: true });
    return snapshot.tables[0] as TableSnapshot;
  };

  beforeAll(() => {
    engine = testEngine();
  });
  beforeEach(async () => {
    await run(["DROP TABLE IF EXISTS kc_child", "DROP TABLE IF EXISTS kc_parent"]);
    await run([
      "CREATE TABLE kc_parent (id int PRIMARY KEY) ENGINE=InnoDB",
      "CREATE TABLE kc_child (id int PRIMARY KEY, parent_id int, n int, CONSTRAINT kc_parent_fk FOREIGN KEY (parent_id) REFERENCES kc_parent (id)) ENGINE=InnoDB",
    ]);
  });
  afterAll(async () => {
    await run(["DROP TABLE IF EXISTS kc_child", "DROP TABLE IF EXISTS kc_parent"]);
    await closeEngines();
  });

  it("reads the index InnoDB made for the key only when asked", async () => {
    expect((await liveChild()).foreignKeyIndexes).toEqual([ownIndex]);
    expect((await introspect(engine, { tables: ["kc_child"] })).tables[0]).not.toHaveProperty("foreignKeyIndexes");
    expect((await liveChild()).indexes).toEqual([]);
  });

  for (const [server, compiler] of [
    ["MySQL 8", mysql8],
    ["MariaDB", mariadb],
  ] as const) {
    it(`${server}'s statement drops the key and its index`, async () => {
      const owner = await liveChild();
      await run(texts(compiler, { kind: "dropForeignKey", table: "kc_child", foreignKey: owner.foreignKeys[0] as typeof key, owner }));
      expect(await indexNames()).toEqual(["PRIMARY"]);
    });

    it(`${server}'s statement drops the only index a key uses, and the key keeps an index`, async () => {
      await run(["CREATE INDEX kc_by_parent ON kc_child (parent_id, n)"]);
      // The declared index serves the key: InnoDB dropped its own.
      expect(await indexNames()).toEqual(["PRIMARY", "kc_by_parent"]);
      const owner = await liveChild();
      await run(texts(compiler, { kind: "dropIndex", table: "kc_child", index: declared, concurrently: false, owner }));
      expect(await indexNames()).toEqual(["PRIMARY", "kc_parent_fk"]);
      expect(await liveChild()).toMatchObject({ indexes: [], foreignKeyIndexes: [ownIndex] });
    });
  }
});
