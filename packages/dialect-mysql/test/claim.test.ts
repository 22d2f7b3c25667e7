import type { Engine } from "tempest-db-js";
import { insert, select, sql, UnsupportedFeatureError, update } from "tempest-db-js";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { Outbound } from "./models.js";
import { closeEngines, gate, recordingEngine, testEngine } from "./support.js";

const engine = testEngine();

/** The guide's first code block, as written there (only the engine is a parameter). */
// biome-ignore format: kept in the guide's own layout
function claimBatchOn(engine: Engine) {
  return async function claimBatch(size: number): Promise<string[]> {
    return engine.transaction(async (tx) => {
      const rows = await tx
        .execute(
          select(Outbound, ["id"])
            .where({ status: "queued" })
            .orderBy("nextAttemptAt")
            .limit(size)
            .forUpdate({ skipLocked: true }), // (1)!
        )
        .all();

      const ids = rows.map((row) => row.id);
      if (ids.length === 0) return [];

      await tx
        .execute(
          update(Outbound)
            .set({
              status: "sending",
              attempts: sql.raw("attempts + 1"), // (2)!
              updatedAt: sql.now(),
            })
            .where({ id: { in: ids } }),
        )
        .rowsAffected();

      return ids;
    });
  };
}

const epoch = Date.UTC(2024, 0, 1);

/** Ids sort like their nextAttemptAt, so the expected claim order is the id order. */
function idOf(i: number): string {
  return `30000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
}

async function seed(count: number): Promise<string[]> {
  const rows = Array.from({ length: count }, (_, i) => ({
    id: idOf(i),
    consumer: "claim",
    status: "queued" as const,
    nextAttemptAt: new Date(epoch + i * 1000),
  }));
  await engine.execute(insert(Outbound).values(rows)).rowsAffected();
  return rows.map((r) => r.id);
}

beforeEach(async () => {
  await engine.dropAll([Outbound]);
  await engine.createAll([Outbound]);
});

afterAll(closeEngines);

describe("the two-step claim from the guide", () => {
  it("claims the earliest batch, increments in SQL and stamps the UTC clock", async () => {
    const ids = await seed(25);
    const before = Date.now();
    const claimed = await claimBatchOn(engine)(10);
    expect(claimed).toEqual(ids.slice(0, 10));
    const rows = await engine.execute(select(Outbound).orderBy("nextAttemptAt")).all();
    for (const row of rows.slice(0, 10)) {
      expect(row).toMatchObject({ status: "sending", attempts: 1 });
      expect(row.updatedAt!.getTime()).toBeGreaterThanOrEqual(before);
    }
    for (const row of rows.slice(10)) expect(row).toMatchObject({ status: "queued", attempts: 0, updatedAt: null });
  });

  it("skips the rows another open transaction holds, instead of waiting or taking them twice", async () => {
    // Big enough that the UPDATE by ids reads the primary key: on a dozen rows InnoDB scans (and
    // waits on) the whole table, which is still correct but waits for the other claimer's commit.
    const ids = await seed(200);
    const other = testEngine();
    const held = gate();
    const done = gate();
    const first = engine.transaction(async (tx) => {
      try {
        const mine = await tx
          .execute(select(Outbound, ["id"]).where({ status: "queued" }).orderBy("nextAttemptAt").limit(5).forUpdate({ skipLocked: true }))
          .all();
        held.open();
        await done.wait; // keep the locks until the second claimer has committed
        return mine.map((r) => r.id);
      } finally {
        held.open();
      }
    });
    await held.wait;
    const second = await claimBatchOn(other)(5).finally(done.open);
    expect(await first).toEqual(ids.slice(0, 5));
    expect(second).toEqual(ids.slice(5, 10));
  });

  it("gives concurrent claimers on separate pools disjoint batches that cover every row, round after round", async () => {
    const ids = await seed(150);
    const claimers = Array.from({ length: 4 }, () => claimBatchOn(testEngine({ poolSize: 2 })));
    for (let round = 1; round <= 3; round++) {
      const batches = await Promise.all(
        claimers.map(async (claimBatch) => {
          const mine: string[] = [];
          for (;;) {
            const batch = await claimBatch(7);
            if (batch.length === 0) return mine;
            expect(batch.length).toBeLessThanOrEqual(7);
            mine.push(...batch);
          }
        }),
      );
      const all = batches.flat();
      expect(new Set(all).size).toBe(all.length); // no row claimed twice
      expect([...all].sort()).toEqual(ids); // every row claimed
      const counts = await engine.execute(select(Outbound, ["attempts", "status"])).all();
      expect(counts.every((r) => r.attempts === round && r.status === "sending")).toBe(true);
      await engine.execute(update(Outbound).set({ status: "queued" }).allRows()).rowsAffected();
    }
  });
});

describe("the single-statement claim", () => {
  it("is refused at compile time with the two-step way named, and nothing reaches the server", async () => {
    await seed(3);
    const { engine: watched, statements } = recordingEngine();
    const claim = update(Outbound)
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
      });
    const error = await watched
      .execute(claim)
      .rowsAffected()
      .catch((e: unknown) => e);
    expect(UnsupportedFeatureError.isInstance(error)).toBe(true);
    expect((error as UnsupportedFeatureError).message).toContain(
      "Claim in two steps: inside transaction(), select the ids with forUpdate()",
    );
    expect(statements.filter((s) => s.sql.startsWith("UPDATE"))).toEqual([]);
    const rows = await engine.execute(select(Outbound, ["status", "attempts"])).all();
    expect(rows.every((r) => r.status === "queued" && r.attempts === 0)).toBe(true);
  });
});
