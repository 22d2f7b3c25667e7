import { describe, expect, it } from "vitest";
import { Model, column, createEngine, select, update, insert, sql } from "tempest-db-js";
import "../src/index.js";

class Outbound extends Model {
  static tablename = "outbound_messages_smoke";
  static naming = "snake_case";

  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}

describe("smoke", () => {
  it("runs", async () => {
    const engine = createEngine(process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test");
    await engine.dropAll([Outbound]);
    await engine.createAll([Outbound]);
    const id = crypto.randomUUID();
    await engine.execute(insert(Outbound).values({ id, consumer: "c", status: "queued", nextAttemptAt: new Date() })).rowsAffected();
    const q = update(Outbound)
      .set({ status: "sending", attempts: sql.raw("attempts + 1"), updatedAt: sql.now() })
      .where({ id: { in: select(Outbound).where({ status: "queued" }).orderBy("nextAttemptAt").limit(10).forUpdate({ skipLocked: true }).asSubquery("id") } })
      .returning();
    console.log(engine.compile(q));
    const rows = await engine.execute(q).all();
    console.log(rows);
    expect(rows[0]?.attempts).toBe(1);
    await engine.close();
  });
});
