import type { Engine } from "tempest-db-js";
import { createEngine, select, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServedDashboard } from "../src/index.js";
import { createDashboard, serveDashboard } from "../src/index.js";
import { seedQueue } from "./support/seed-queue.js";
import { targets } from "./support/targets.js";

const TOKEN = "test-token-0123456789abcdef";
const auth = { authorization: `Bearer ${TOKEN}` };

describe.each(targets)("the dashboard's API on $name", (target) => {
  let engine: Engine;
  let seeded: Awaited<ReturnType<typeof seedQueue>>;
  let readOnly: ServedDashboard;
  let writable: ServedDashboard;
  beforeAll(async () => {
    engine = createEngine(target.url, { poolSize: 3 });
    seeded = await seedQueue(engine, "console_http");
    readOnly = await serveDashboard({ db: engine, model: seeded.Outbound, token: TOKEN, port: 0 });
    writable = await serveDashboard({
      db: engine,
      model: seeded.Outbound,
      token: TOKEN,
      port: 0,
      allowWrites: true,
      basePath: "/admin/queue",
    });
  });
  afterAll(async () => {
    await readOnly.close();
    await writable.close();
    await engine.close();
  });

  it("refuses every data request without the right token; serves the page and its assets to anyone", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong" },
      { authorization: TOKEN },
      { cookie: `token=${TOKEN}` },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${readOnly.url}api/snapshot`, { headers });
      expect(response.status).toBe(401);
    }
    const page = await fetch(readOnly.url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(await page.text()).not.toMatch(/https?:\/\//); // every asset from the package, no CDN
    expect((await fetch(`${readOnly.url}assets/app.js`)).headers.get("content-type")).toMatch(/javascript/);
    expect((await fetch(`${readOnly.url}../etc/passwd`)).status).toBe(404);
  });

  it("reports the numbers the table holds", async () => {
    const response = await fetch(`${readOnly.url}api/snapshot`, { headers: auth });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body.depth).toEqual({ queued: 3, due: 3, sending: 1, failed: 2 });
    expect(body.writable).toBe(false);
    expect(body.history.length).toBeGreaterThanOrEqual(1);
    const failed = (await (await fetch(`${readOnly.url}api/messages?status=failed`, { headers: auth })).json()) as any;
    expect(failed.messages.map((m: { id: string }) => m.id).sort()).toEqual([...seeded.failed].sort());
    expect((await fetch(`${readOnly.url}api/messages?status=dropped`, { headers: auth })).status).toBe(400);
  });

  it("acts only when writes are on, only on the ids named, and takes ids as values", async () => {
    const post = (
      base: string,
      action: string,
      body: unknown,
      headers: Record<string, string> = { ...auth, "content-type": "application/json" },
    ) => fetch(`${base}api/${action}`, { method: "POST", headers, body: JSON.stringify(body) });
    expect((await post(readOnly.url, "retry", { ids: seeded.failed })).status).toBe(403);
    expect((await post(writable.url, "retry", { ids: seeded.failed }, { "content-type": "application/json" })).status).toBe(401);
    expect((await post(writable.url, "retry", { ids: seeded.failed }, { ...auth, "content-type": "text/plain" })).status).toBe(400);
    expect((await post(writable.url, "retry", { ids: [{ $ne: null }] })).status).toBe(400);
    expect((await post(writable.url, "retry", { ids: "1 OR 1=1" })).status).toBe(400);

    // Not a uuid: refused when the statement is built (a ValidationError, 400), before anything is written.
    const hostile = await post(writable.url, "retry", { ids: [seeded.failed[0], "' OR ''='"] });
    expect(hostile.status).toBe(400);
    expect(((await hostile.json()) as { error: string }).error).not.toContain("OR ''");
    const retried = await post(writable.url, "retry", { ids: [seeded.failed[0]] });
    expect(retried.status).toBe(200);
    expect(((await retried.json()) as { count: number }).count).toBe(1);
    const cancelled = await post(writable.url, "cancel", { ids: [seeded.queued[0], seeded.sending[0]] });
    expect(((await cancelled.json()) as { count: number }).count).toBe(1);
    const rows = (await engine.execute(select(seeded.Outbound)).all()) as { id: string; status: string }[];
    const statusOf = (id: unknown) => rows.find((r) => r.id === id)?.status;
    expect([statusOf(seeded.failed[0]), statusOf(seeded.failed[1]), statusOf(seeded.queued[0]), statusOf(seeded.sending[0])]).toEqual([
      "queued",
      "failed",
      "failed",
      "sending",
    ]);
  });
});

describe("createDashboard", () => {
  it("is never open by default", () => {
    const db = {} as Engine;
    const model = class {} as never;
    expect(() => createDashboard({ db, model })).toThrow(ValidationError);
    expect(() => createDashboard({ db, model, token: "short" })).toThrow(/at least 16/);
  });
});
