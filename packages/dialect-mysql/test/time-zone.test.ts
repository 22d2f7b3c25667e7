import { insert, select, sql } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Outbound } from "./models.js";
import { closeEngines, scalar, testEngine } from "./support.js";

const engine = testEngine();
const originalTz = process.env.TZ;
const instant = new Date(Date.UTC(2024, 2, 31, 1, 30, 0, 123)); // inside a DST change in Europe

function row(id: string, nextAttemptAt: Date) {
  return { id, consumer: "tz", status: "queued" as const, nextAttemptAt };
}

beforeAll(async () => {
  // Neither Node's zone nor the server session's zone may shift a stored instant.
  process.env.TZ = "Europe/Paris";
  await engine.dropAll([Outbound]);
  await engine.createAll([Outbound]);
});

afterAll(async () => {
  process.env.TZ = originalTz;
  await closeEngines();
});

describe("datetime is UTC whatever the zones", () => {
  it("runs every new connection in UTC", async () => {
    expect(await scalar(engine, "SELECT @@SESSION.time_zone")).toBe("+00:00");
    expect(await scalar(engine, "SELECT TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(), NOW())")).toBe("0");
  });

  it("round-trips a Date to the millisecond in a session set to +09:00, Node in Europe/Paris", async () => {
    expect(new Date(2024, 0, 1).getTimezoneOffset()).toBe(-60);
    const read = await engine.transaction(async (tx) => {
      await tx.execute(sql.raw("SET SESSION time_zone = '+09:00'")).rowsAffected();
      expect(await tx.execute(sql.raw("SELECT TIMESTAMPDIFF(HOUR, UTC_TIMESTAMP(), NOW()) AS h")).scalar()).toBe("9");
      await tx.execute(insert(Outbound).values(row("10000000-0000-4000-8000-000000000001", instant))).rowsAffected();
      const inside = await tx.execute(select(Outbound, ["nextAttemptAt"]).where({ nextAttemptAt: instant })).one();
      await tx.execute(sql.raw("SET SESSION time_zone = '+00:00'")).rowsAffected();
      return inside;
    });
    expect(read.nextAttemptAt.toISOString()).toBe("2024-03-31T01:30:00.123Z");
    const outside = await engine.execute(select(Outbound, ["nextAttemptAt"]).where({ id: "10000000-0000-4000-8000-000000000001" })).one();
    expect(outside.nextAttemptAt.getTime()).toBe(instant.getTime());
  });

  it("stores the instant as its UTC wall time", async () => {
    expect(
      await scalar(
        engine,
        "SELECT CAST(next_attempt_at AS CHAR) FROM dm_outbound_messages WHERE id = '10000000-0000-4000-8000-000000000001'",
      ),
    ).toBe("2024-03-31 01:30:00.123");
  });

  it("orders sql.now() between Dates written from JavaScript before and after it, in a non-UTC session", async () => {
    const ids = [
      "20000000-0000-4000-8000-000000000001",
      "20000000-0000-4000-8000-000000000002",
      "20000000-0000-4000-8000-000000000003",
    ] as const;
    const before = new Date();
    await engine.transaction(async (tx) => {
      await tx.execute(sql.raw("SET SESSION time_zone = '-08:00'")).rowsAffected();
      await tx.execute(insert(Outbound).values(row(ids[0], before))).rowsAffected();
      await tx.execute(insert(Outbound).values({ ...row(ids[1], before), nextAttemptAt: sql.now() })).rowsAffected();
      await tx.execute(sql.raw("SET SESSION time_zone = '+00:00'")).rowsAffected();
    });
    const after = new Date();
    await engine.execute(insert(Outbound).values(row(ids[2], after))).rowsAffected();
    const rows = await engine.execute(select(Outbound, ["id", "nextAttemptAt"]).where({ id: { in: [...ids] } })).all();
    const at = Object.fromEntries(rows.map((r) => [r.id, r.nextAttemptAt.getTime()]));
    expect(at[ids[0]]).toBe(before.getTime());
    expect(at[ids[1]]).toBeGreaterThanOrEqual(before.getTime());
    expect(at[ids[1]]).toBeLessThanOrEqual(after.getTime());
    // And the server agrees when it compares them itself.
    const notLater = await engine
      .execute(select(Outbound, ["id"]).where({ id: { in: [...ids] }, nextAttemptAt: { lte: sql.now() } }))
      .all();
    expect(notLater.map((r) => r.id).sort()).toEqual([...ids].sort());
  });
});
