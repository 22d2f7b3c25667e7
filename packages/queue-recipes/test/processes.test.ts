import type { Engine } from "tempest-db-js";
import { select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countBy } from "./support/fresh-queue.js";
import { drainByFourProcesses, killMidBatch, survive } from "./support/process-runs.js";
import { engineFor, targets } from "./support/targets.js";

describe.each(targets)("worker processes on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 8);
  });
  afterAll(async () => {
    await engine.close();
  });

  it("4 processes drain thousands of messages, each delivered exactly once", async () => {
    await drainByFourProcesses(engine, target, "proc_once");
  });

  it("loses nothing when a worker is killed with SIGKILL mid-batch: its rows are reclaimed after the lease and sent", async () => {
    const { Outbound, Delivery, victim, total } = await killMidBatch(engine, target, "proc_kill", 7);
    // The batch's deliveries run concurrently: at least 7 got through before the kill, maybe more.
    const early = await engine.execute(select(Delivery, ["messageId"]).where({ worker: `pid-${victim.pid}` })).all();
    expect(early.length).toBeGreaterThanOrEqual(7);
    const stranded = await engine.execute(select(Outbound, ["id"]).where({ status: "sending" })).all();
    expect(stranded).toHaveLength(20);

    // A surviving worker: it sends the untouched rows, and reclaims the dead claim once its lease ran out.
    const totals = await survive(engine, { Outbound, Delivery }, { guardMs: 30_000, done: (sofar) => sofar.sent === total });
    expect(totals).toMatchObject({ sent: total, failed: 0, stale: 0, reclaimed: 20 });
    const rows = await engine.execute(select(Outbound, ["id", "status", "attempts"])).all();
    expect(rows.every((r) => r.status === "sent")).toBe(true);
    const strandedIds = new Set(stranded.map((r) => r.id));
    expect(rows.filter((r) => strandedIds.has(r.id)).every((r) => r.attempts === 2)).toBe(true);
    // At least once: what the dead worker delivered before it died is delivered again, nothing else twice.
    // Read again now: an INSERT the dead worker had sent may have committed after its death (the
    // server finishes a statement it has received), after the first read above.
    const byVictim = await engine.execute(select(Delivery, ["messageId"]).where({ worker: `pid-${victim.pid}` })).all();
    expect(byVictim.length).toBeGreaterThanOrEqual(early.length);
    const perMessage = countBy(await engine.execute(select(Delivery, ["messageId"])).all(), (d) => d.messageId);
    expect(Object.keys(perMessage)).toHaveLength(total);
    expect(
      Object.entries(perMessage)
        .filter(([, n]) => n === 2)
        .map(([id]) => id)
        .sort(),
    ).toEqual(byVictim.map((d) => d.messageId).sort());
    expect(Object.values(perMessage).every((n) => n <= 2)).toBe(true);
  });
});
