import type { Engine } from "tempest-db-js";
import { select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueue } from "../src/index.js";
import { forkService } from "./support/fork-service.js";
import { freshQueue } from "./support/fresh-queue.js";
import type { Span } from "./support/spans.js";
import { overlaps } from "./support/spans.js";
import { engineFor, targets } from "./support/targets.js";

async function until(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each(targets)("worker processes and SIGTERM on $name", (target) => {
  let engine: Engine;
  beforeAll(() => {
    engine = engineFor(target, 2);
  });
  afterAll(async () => {
    await engine.close();
  });

  const statuses = async (model: any) =>
    (await engine.execute(select(model, ["status"])).all()).map((r) => (r as { status: string }).status).sort();

  it("on SIGTERM finishes and settles the deliveries in flight, then exits 0", async () => {
    const { Outbound } = await freshQueue(engine, "svc_term");
    await enqueue(engine, Outbound, [{ consumer: "a" }, { consumer: "b" }, { consumer: "c" }]);
    const service = forkService(target, { table: Outbound.tablename, deliveryMs: 800 });
    await until(() => service.started.length === 3);
    service.child.kill("SIGTERM");
    const { code } = await service.exited;
    expect(code).toBe(0);
    expect(service.spans.map((s) => s.aborted)).toEqual([false, false, false]);
    expect(await statuses(Outbound)).toEqual(["sent", "sent", "sent"]);
  });

  it("on SIGTERM gives back what is still running after stopTimeoutMs and exits, leaving nothing in sending", async () => {
    const { Outbound } = await freshQueue(engine, "svc_hang");
    await enqueue(engine, Outbound, [{ consumer: "a" }, { consumer: "b" }]);
    const service = forkService(target, { table: Outbound.tablename, hang: true, stopTimeoutMs: 300, deliveryTimeoutMs: 60_000 });
    await until(() => service.started.length === 2);
    const sent = performance.now();
    service.child.kill("SIGTERM");
    const { code, at } = await service.exited;
    expect(code).toBe(0);
    // Bounded by the stop grace, not by the hung deliveries (which never end) nor by the lease (300 s).
    expect(at - sent).toBeLessThan(10_000);
    expect(await statuses(Outbound)).toEqual(["queued", "queued"]);
  });

  it("two worker processes with deliveries longer than the lease never deliver a message at the same time", async () => {
    const { Outbound } = await freshQueue(engine, "svc_race");
    await enqueue(
      engine,
      Outbound,
      Array.from({ length: 4 }, (_, i) => ({ consumer: `c${i}` })),
    );
    const config = { table: Outbound.tablename, deliveryMs: 2200, leaseSeconds: 0.9, batchSize: 4 };
    const services = [forkService(target, config), forkService(target, config)];
    await until(async () => (await statuses(Outbound)).every((s) => s === "sent"));
    for (const s of services) s.child.kill("SIGTERM");
    const codes = await Promise.all(services.map((s) => s.exited));
    expect(codes.map((c) => c.code)).toEqual([0, 0]);
    const spans: Span[] = services.flatMap((s) => s.spans);
    expect(overlaps(spans.filter((s) => !s.aborted))).toEqual([]);
    expect(spans.filter((s) => !s.aborted)).toHaveLength(4);
    expect(new Set(spans.map((s) => s.message)).size).toBe(4);
  });
});
