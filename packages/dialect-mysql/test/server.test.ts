import { createEngine, select, sql, UnsupportedFeatureError } from "tempest-db-js";
import { afterAll, describe, expect, it } from "vitest";
import type { MysqlCapabilities } from "../src/index.js";
import { MARIADB_10_11, MYSQL_8_0, MysqlCompiler, mysqlCapabilities, mysqlDialect, parseServerVersion } from "../src/index.js";
import { Outbound } from "./models.js";
import { closeEngines, OFFLINE_MARIADB, OFFLINE_MYSQL, TEST_URL, testEngine } from "./support.js";

afterAll(closeEngines);

describe("server versions", () => {
  it("reads MySQL and MariaDB version strings", () => {
    expect(parseServerVersion("10.11.19-MariaDB-0+deb12u1")).toEqual({ flavor: "mariadb", major: 10, minor: 11, patch: 19 });
    expect(parseServerVersion("5.5.5-10.6.16-MariaDB-log")).toEqual({ flavor: "mariadb", major: 10, minor: 6, patch: 16 });
    expect(parseServerVersion("11.4.2-MariaDB")).toEqual({ flavor: "mariadb", major: 11, minor: 4, patch: 2 });
    expect(parseServerVersion("8.0.36")).toEqual({ flavor: "mysql", major: 8, minor: 0, patch: 36 });
    expect(parseServerVersion("8.4.0-commercial")).toEqual({ flavor: "mysql", major: 8, minor: 4, patch: 0 });
    expect(parseServerVersion("5.7.44-log")).toEqual({ flavor: "mysql", major: 5, minor: 7, patch: 44 });
    expect(parseServerVersion("not a version")).toBeUndefined();
  });

  it("differ where the servers differ", () => {
    const pick = (c: MysqlCapabilities) => ({
      skipLocked: c.skipLocked,
      noWait: c.noWait,
      lockOf: c.lockOf,
      returningInsert: c.returningInsert,
      returningDelete: c.returningDelete,
      lockInShareMode: c.lockInShareMode,
      indexIfNotExists: c.indexIfNotExists,
    });
    expect(pick(mysqlCapabilities(MYSQL_8_0))).toEqual({
      skipLocked: true,
      noWait: true,
      lockOf: true,
      returningInsert: false,
      returningDelete: false,
      lockInShareMode: false,
      indexIfNotExists: false,
    });
    expect(pick(mysqlCapabilities(MARIADB_10_11))).toEqual({
      skipLocked: true,
      noWait: true,
      lockOf: false,
      returningInsert: true,
      returningDelete: true,
      lockInShareMode: true,
      indexIfNotExists: true,
    });
    expect(mysqlCapabilities({ flavor: "mariadb", major: 10, minor: 5, patch: 0 })).toMatchObject({
      skipLocked: false,
      returningInsert: true,
    });
    expect(mysqlCapabilities({ flavor: "mysql", major: 5, minor: 7, patch: 44 })).toMatchObject({
      skipLocked: false,
      noWait: false,
      lockInShareMode: true,
    });
    for (const server of [MYSQL_8_0, MARIADB_10_11]) {
      expect(mysqlCapabilities(server)).toMatchObject({
        returningUpdate: false,
        limitInSubquery: false,
        conflictTarget: false,
        partialIndexes: false,
        onDuplicateKey: true,
      });
    }
  });

  it("a server without SKIP LOCKED refuses it with the upgrade named", () => {
    const compiler = new MysqlCompiler(mysqlCapabilities({ flavor: "mariadb", major: 10, minor: 5, patch: 0 }));
    const claim = select(Outbound, ["id"]).limit(10).forUpdate({ skipLocked: true });
    let error: unknown;
    try {
      compiler.compile(claim.toNode());
    } catch (e) {
      error = e;
    }
    expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
    expect((error as UnsupportedFeatureError).hint).toContain("MariaDB 10.6+");
  });
});

describe("the URL gives the assumption; the server corrects it", () => {
  it("assumes MariaDB 10.11 for mariadb:// and MySQL 8 for mysql://", () => {
    expect(mysqlDialect.capabilitiesFor(OFFLINE_MARIADB)).toMatchObject({ server: MARIADB_10_11 });
    expect(mysqlDialect.capabilitiesFor(OFFLINE_MYSQL)).toMatchObject({ server: MYSQL_8_0 });
    expect(createEngine(OFFLINE_MARIADB).dialectName).toBe("MySQL");
  });

  it("connects with a mariadb:// URL as well", async () => {
    const engine = testEngine();
    const viaMariadbScheme = createEngine(TEST_URL.replace(/^[a-z]+:/i, "mariadb:"));
    try {
      const [a, b] = await Promise.all([
        viaMariadbScheme.execute(sql.raw("SELECT DATABASE() AS db, @@SESSION.time_zone AS tz")).one(),
        engine.execute(sql.raw("SELECT DATABASE() AS db, @@SESSION.time_zone AS tz")).one(),
      ]);
      expect(a).toEqual(b);
      expect(a).toEqual({ db: new URL(TEST_URL).pathname.slice(1), tz: "+00:00" });
    } finally {
      await viaMariadbScheme.close();
    }
  });

  it("rebuilds the capability table from VERSION() at the first connection", async () => {
    const engine = testEngine();
    await engine.execute(sql.raw("SELECT 1")).all();
    const reported = parseServerVersion(String(await engine.execute(sql.raw("SELECT VERSION()")).scalar()));
    expect(reported).toBeDefined();
    expect((engine.capabilities as MysqlCapabilities).server).toEqual(reported);
    expect(engine.capabilities).toEqual(mysqlCapabilities(reported!));
  });

  it("a mysql:// URL pointing at MariaDB compiles FOR UPDATE OF until the server is known, then refuses it", async () => {
    const mysqlUrl = TEST_URL.replace(/^[a-z]+:/i, "mysql:");
    const lockOf = select(Outbound, ["id"]).forUpdate({ of: [Outbound] });
    const viaMysqlScheme = createEngine(mysqlUrl);
    try {
      expect(viaMysqlScheme.compile(lockOf).sql).toContain("FOR UPDATE OF");
      await viaMysqlScheme.execute(sql.raw("SELECT 1")).all();
      const server = (viaMysqlScheme.capabilities as MysqlCapabilities).server;
      if (server.flavor === "mariadb") expect(() => viaMysqlScheme.compile(lockOf)).toThrow(UnsupportedFeatureError);
      else expect(viaMysqlScheme.compile(lockOf).sql).toContain("FOR UPDATE OF");
    } finally {
      await viaMysqlScheme.close();
    }
  });
});
