import type { Engine } from "tempest-db-js";
import { column, createEngine, dropTable, select, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue, ensureQueueSchema } from "../src/index.js";
import { freshQueue } from "./support/fresh-queue.js";
import { outboundModel } from "./support/models.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("enqueue of many messages on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 2);
  });
  afterAll(async () => {
    await engine.close();
  });

  const count = async (model: any) => (await engine.execute(select(model, ["id"])).all()).length;

  it("refuses a bad message anywhere in the input before writing anything, naming its position", async () => {
    const { Outbound } = await freshQueue(engine, "many_invalid");
    const messages: Record<string, unknown>[] = Array.from({ length: 7200 }, (_, i) => ({ consumer: `c${i % 7}` }));
    messages[7001] = { consumer: "x", colour: "blue" };
    const error = await enqueue(engine, Outbound, messages as never).catch((e: unknown) => e);
    expect(ValidationError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe('enqueue: message 7001: no field "colour"');
    expect(await count(Outbound)).toBe(0);
  });

  /** The guide's model with a JSON payload column (LONGTEXT on MariaDB, so 5 MB fit). */
  async function payloadQueue(name: string) {
    const Outbound = class extends outboundModel(`qr_${name}`) {
      payload = column.json();
    };
    await engine.execute(dropTable(Outbound, { ifExists: true })).rowsAffected();
    await ensureQueueSchema(engine, Outbound);
    return Outbound;
  }

  it("rolls back every chunk when the database refuses one of them", async () => {
    const Outbound = await payloadQueue("many_server");
    const messages: Record<string, unknown>[] = Array.from({ length: 1600 }, (_, i) => ({ consumer: `c${i}` }));
    // The server refuses the last chunk. A repeated primary key where the insert names the key
    // columns as its conflict target (the primary key is not the arbiter, so it is an error); on
    // MySQL, whose INSERT IGNORE would skip a repeated primary key, a row larger than max_allowed_packet.
    const id = "00000000-0000-4000-8000-000000000001";
    if (target.name === "MySQL") messages[1550] = { consumer: "big", payload: { text: "x".repeat(17 * 1024 * 1024) } };
    else {
      messages[3] = { id, consumer: "first" };
      messages[1550] = { id, consumer: "again" };
    }
    await expect(enqueue(engine, Outbound, messages as never, { maxStatementBytes: 64 * 1024 * 1024 })).rejects.toThrow();
    expect(await count(Outbound)).toBe(0);
    // The pool is fine afterwards.
    expect((await enqueue(engine, Outbound, { consumer: "after" })).inserted).toHaveLength(1);
  });

  it("splits large payloads by bytes, so four 5 MB messages go in (and the next statement works)", async () => {
    const Outbound = await payloadQueue("many_bytes");
    const statements: string[] = [];
    const spy = createEngine(target.url, { poolSize: 2, onQuery: (e) => e.sql.includes("INSERT INTO") && statements.push(e.sql) });
    try {
      const result = await enqueue(
        spy,
        Outbound,
        Array.from({ length: 4 }, (_, i) => ({ consumer: `big${i}`, payload: { text: String(i).repeat(5 * 1024 * 1024) } })),
      );
      expect(result.inserted).toHaveLength(4);
    } finally {
      await spy.close();
    }
    // 5 MB of text is estimated at 5 MB: one message per statement under the 4 MiB default.
    expect(statements).toHaveLength(4);
    const rows = await engine.execute(select(Outbound, ["consumer", "payload"]).orderBy("consumer")).all();
    const text = (r: { payload: unknown }) => (r.payload as { text: string }).text;
    expect(rows.map((r) => [r.consumer, text(r).length, text(r)[0]])).toEqual([
      ["big0", 5 * 1024 * 1024, "0"],
      ["big1", 5 * 1024 * 1024, "1"],
      ["big2", 5 * 1024 * 1024, "2"],
      ["big3", 5 * 1024 * 1024, "3"],
    ]);
    expect((await enqueue(engine, Outbound, { consumer: "small" })).inserted).toHaveLength(1);
  });

  it("stores a value exactly or refuses it, never cut short to fit its column", async () => {
    const { Outbound } = await freshQueue(engine, "many_long");
    const consumer = "z".repeat(70_000);
    const outcome = await enqueue(engine, Outbound, { consumer }).then(
      () => "stored",
      (error: unknown) => String(error),
    );
    const rows = await engine.execute(select(Outbound, ["consumer"])).all();
    if (target.name !== "MySQL") {
      expect(outcome).toBe("stored");
      expect(rows.map((r) => r.consumer.length)).toEqual([70_000]);
    } else {
      // MySQL sizes the indexed consumer column as varchar(255): refused (INSERT IGNORE stored 255 characters).
      expect(outcome).toMatch(/Data too long/);
      expect(rows).toEqual([]);
    }
  });
});
