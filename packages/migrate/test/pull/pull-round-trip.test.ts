import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Engine, ModelClass } from "tempest-db-js";
import { applySchemaChange, introspect, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alterCapabilitiesOf, diffSchemas, pullModels } from "../../src/index.js";
import { engineFor, targets, tempFolder } from "../support/targets.js";
import { pullModelsFixture, pullModelsFixtureMysql } from "./pull-fixtures.js";

const TABLES = ["pull_users", "pull_tickets", "pull_tags", "legacy_accounts", "legacy_orders"];
const folder = tempFolder("pull-round-trip");
afterAll(() => folder.remove());

/** Tables written by hand, not by models: what a team adopting the library already has. */
const legacyDdl: Record<string, readonly string[]> = {
  PostgreSQL: [
    "CREATE TABLE legacy_accounts (id bigint PRIMARY KEY, email varchar(200) NOT NULL UNIQUE, created_at timestamptz(3) NOT NULL DEFAULT now(), is_admin boolean NOT NULL DEFAULT false)",
    "CREATE TABLE legacy_orders (id integer PRIMARY KEY, account_id bigint NOT NULL REFERENCES legacy_accounts (id) ON DELETE CASCADE, total numeric(12, 2), note text)",
    "CREATE INDEX legacy_orders_open ON legacy_orders (account_id) WHERE note IS NULL",
  ],
  MySQL: [
    "CREATE TABLE legacy_accounts (id bigint PRIMARY KEY, email varchar(200) NOT NULL UNIQUE, created_at datetime(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), is_admin tinyint(1) NOT NULL DEFAULT 0)",
    "CREATE TABLE legacy_orders (id int PRIMARY KEY, account_id bigint NOT NULL, total decimal(12, 2), note text, FOREIGN KEY (account_id) REFERENCES legacy_accounts (id) ON DELETE CASCADE)",
  ],
  SQLite: [
    "CREATE TABLE legacy_accounts (id integer PRIMARY KEY, email text NOT NULL UNIQUE, is_admin integer NOT NULL DEFAULT 0)",
    "CREATE TABLE legacy_orders (id integer PRIMARY KEY, account_id integer NOT NULL REFERENCES legacy_accounts (id) ON DELETE CASCADE, note text)",
    "CREATE INDEX legacy_orders_open ON legacy_orders (account_id) WHERE note IS NULL",
  ],
};

describe.each(targets)("pull → createAll → introspect on $name", (target) => {
  let engine: Engine;
  const clear = async () => {
    const live = await introspect(engine, { tables: TABLES });
    const plan = diffSchemas(
      live,
      { ...live, tables: [] },
      { allowDestructive: "all", capabilities: alterCapabilitiesOf(engine.capabilities) },
    );
    for (const planned of plan.changes) await applySchemaChange(engine, planned.change);
  };
  beforeAll(async () => {
    engine = engineFor(target);
    await clear();
  });
  afterAll(async () => {
    await clear();
    await engine.close();
  });

  it("gives back the schema it was pulled from", async () => {
    await engine.createAll(target.name === "MySQL" ? pullModelsFixtureMysql : pullModelsFixture);
    for (const statement of legacyDdl[target.name] ?? []) await engine.execute(sql.raw(statement)).rowsAffected();
    const live = await introspect(engine, { tables: TABLES });
    expect(live.tables.map((t) => t.name).sort()).toEqual([...TABLES].sort());

    const pulled = pullModels(live, { check: engine });
    expect(pulled.warnings).toEqual([]);
    expect(pulled.roundTrips).toBe(true);
    const path = join(folder.path, `models-${target.name}.ts`);
    writeFileSync(path, pulled.source);
    const models = Object.values(await import(path)) as ModelClass[];

    await clear();
    // createAll takes referenced models first.
    const order = ["LegacyAccounts", "LegacyOrders", "PullUsers", "PullTickets", "PullTags"];
    await engine.createAll(order.map((name) => models.find((m) => m.name === name) as ModelClass));
    expect(await introspect(engine, { tables: TABLES })).toEqual(live);
  });
});
