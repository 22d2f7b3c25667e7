import { sql as dsql, eq, inArray } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import { integer, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";
import knexFactory from "knex";
import { DummyDriver, Kysely, sql as ksql, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from "kysely";
import { do_not_optimize, measure } from "mitata";
import "@tempest-db-js/dialect-postgres";
import { createEngine, select, sql, update } from "tempest-db-js";
import { Outbound } from "../lib/models.js";
import type { Row, SectionResult } from "../lib/report.js";
import { check } from "../lib/report.js";

interface OutboundTable {
  id: string;
  consumer: string;
  idempotency_key: string | null;
  status: string;
  attempts: number;
  next_attempt_at: Date;
  updated_at: Date | null;
}

const drizzleOutbound = pgTable("outbound_messages", {
  id: uuid("id").primaryKey(),
  consumer: text("consumer").notNull(),
  idempotencyKey: text("idempotency_key"),
  status: text("status", { enum: ["queued", "sending", "sent", "failed"] }).notNull(),
  attempts: integer("attempts").notNull().default(0),
  nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, precision: 3 }).notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }),
});

/**
 * The guide's single-statement claim, built and compiled to PostgreSQL SQL without a round trip, by
 * each library. Every "fresh" case builds a new builder per call: what an application does.
 */
export async function buildCompile(quick: boolean): Promise<SectionResult> {
  const engine = createEngine("postgresql://bench@127.0.0.1:1/none"); // never connects: compile() needs no connection
  const kysely = new Kysely<{ outbound_messages: OutboundTable }>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new PostgresIntrospector(db),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  const knex = knexFactory({ client: "pg" });
  const db = drizzle.mock();

  const tempestClaim = () =>
    update(Outbound)
      .set({ status: "sending", attempts: sql.raw("attempts + 1"), updatedAt: sql.now() })
      .where({
        id: {
          in: select(Outbound)
            .where({ status: "queued" })
            .orderBy("nextAttemptAt")
            .limit(10)
            .forUpdate({ skipLocked: true })
            .asSubquery("id"),
        },
      })
      .returning();

  const kyselyClaim = () =>
    kysely
      .updateTable("outbound_messages")
      .set({ status: "sending", attempts: ksql`attempts + 1`, updated_at: ksql`now()` })
      .where("id", "in", (eb) =>
        eb
          .selectFrom("outbound_messages")
          .select("id")
          .where("status", "=", "queued")
          .orderBy("next_attempt_at")
          .limit(10)
          .forUpdate()
          .skipLocked(),
      )
      .returningAll();

  const knexClaim = () =>
    knex("outbound_messages")
      .update({ status: "sending", attempts: knex.raw("attempts + 1"), updated_at: knex.fn.now() })
      .whereIn(
        "id",
        knex("outbound_messages").select("id").where("status", "queued").orderBy("next_attempt_at").limit(10).forUpdate().skipLocked(),
      )
      .returning("*");

  const drizzleClaim = () =>
    db
      .update(drizzleOutbound)
      .set({ status: "sending", attempts: dsql`attempts + 1`, updatedAt: dsql`now()` })
      .where(
        inArray(
          drizzleOutbound.id,
          db
            .select({ id: drizzleOutbound.id })
            .from(drizzleOutbound)
            .where(eq(drizzleOutbound.status, "queued"))
            .orderBy(drizzleOutbound.nextAttemptAt)
            .limit(10)
            .for("update", { skipLocked: true }),
        ),
      )
      .returning();

  const sqlTexts = {
    tempest: engine.compile(tempestClaim()).sql,
    kysely: kyselyClaim().compile().sql,
    knex: knexClaim().toSQL().toNative().sql,
    drizzle: drizzleClaim().toSQL().sql,
  };

  const prebuilt = tempestClaim();
  const cases: [string, () => unknown][] = [
    ["tempest: fresh build + compile", () => engine.compile(tempestClaim())],
    ["kysely: fresh build + compile", () => kyselyClaim().compile()],
    ["drizzle: fresh build + toSQL", () => drizzleClaim().toSQL()],
    ["knex: fresh build + toSQL", () => knexClaim().toSQL().toNative()],
    ["tempest: build only", () => tempestClaim()],
    ["tempest: compile of a prebuilt statement (per-node cache hit)", () => engine.compile(prebuilt)],
  ];
  const rows: Row[] = [];
  for (const [name, fn] of cases) {
    const stats = await measure(
      () => {
        do_not_optimize(fn());
      },
      quick ? { min_cpu_time: 20e6, min_samples: 12, warmup_samples: 4 } : { min_cpu_time: 1500e6 },
    );
    rows.push({ name, value: stats.p50 / 1000, unit: "µs", extra: { p99: stats.p99 / 1000 } });
  }
  await engine.close();
  await knex.destroy();
  await kysely.destroy();

  const tempestVsKysely = (rows[0]?.value as number) / (rows[1]?.value as number);
  return {
    id: "build-compile",
    title: "3. Build + compile of the guide's single-statement claim (no round trip)",
    groups: [
      {
        title: "PostgreSQL SQL, µs per statement (mitata p50)",
        rows,
        baselines: ["kysely: fresh build + compile"],
        checks: [check("tempest fresh ÷ kysely fresh", tempestVsKysely, "≤", 0.3)],
        notes: [
          "Every 'fresh' row builds a new builder per call, so tempest's per-node compile cache never hits there; the last row shows what the cache saves when a statement object is reused.",
          ...Object.entries(sqlTexts).map(([lib, text]) => `${lib}: ${text}`),
        ],
      },
    ],
  };
}
