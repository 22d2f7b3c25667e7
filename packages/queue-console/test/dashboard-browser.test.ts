import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { chromium } from "playwright-core";
import type { Engine } from "tempest-db-js";
import { createEngine, select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServedDashboard } from "../src/index.js";
import { serveDashboard } from "../src/index.js";
import { seedQueue } from "./support/seed-queue.js";
import { targets } from "./support/targets.js";

const CHROMIUM = process.env.TEMPEST_CHROMIUM ?? "/usr/bin/chromium";
const TOKEN = "browser-token-0123456789abcdef";
/** Where a person finds the screenshots after a run (CI keeps .ci-out). */
const SHOTS = fileURLToPath(new URL("../../../.ci-out/queue-console/", import.meta.url));

describe.each(targets.filter((t) => t.name !== "MySQL"))("the dashboard in Chromium, on $name", (target) => {
  let engine: Engine;
  let browser: Browser;
  let served: ServedDashboard;
  let seeded: Awaited<ReturnType<typeof seedQueue>>;
  beforeAll(async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: npm test installs Debian's chromium (scripts/setup)`).toBe(true);
    engine = createEngine(target.url, { poolSize: 3 });
    seeded = await seedQueue(engine, "console_browser");
    served = await serveDashboard({ db: engine, model: seeded.Outbound, token: TOKEN, port: 0, allowWrites: true, sampleIntervalMs: 200 });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await engine?.close();
  });

  it("asks for the token, then shows the table's numbers; retry from the page re-queues the message", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("dialog", (dialog) => {
      errors.push(`dialog: ${dialog.message()}`);
      void dialog.dismiss();
    });

    await page.goto(served.url);
    await page.locator("#login").waitFor({ state: "visible" });
    await page.fill("#token", "not-the-token-at-all");
    await page.click("#login button");
    await expect.poll(() => page.textContent("#login-error")).toContain("refused");

    await page.goto(`${served.url}#token=${TOKEN}`);
    await page.locator("body[data-loaded=true]").waitFor();
    expect(page.url()).not.toContain(TOKEN); // taken out of the address bar
    const metric = (name: string) => page.textContent(`[data-metric="${name}"]`);
    expect([await metric("queued"), await metric("due"), await metric("sending"), await metric("failed")]).toEqual(["3", "3", "1", "2"]);
    expect(await page.locator("#consumers tbody tr").count()).toBe(3);
    expect(await page.locator("#chart polyline").count()).toBe(3);
    // The stored error with markup is shown as text: no element, no script ran.
    expect(await page.locator("#failing td.error-text").first().textContent()).toMatch(
      /HTTP 500 <img src=x onerror="alert\(1\)">|connection reset/,
    );
    expect(await page.locator("img").count()).toBe(0);

    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}dashboard-${target.name.toLowerCase()}.png`, fullPage: true });

    const row = page.locator(`#messages tbody tr[data-id="${seeded.failed[0]}"]`);
    await row.locator("button[data-action=retry]").click();
    await expect.poll(() => page.textContent("#action-result")).toBe("Retried 1 message.");
    await expect.poll(() => metric("failed")).toBe("1");
    const status = (await engine.execute(select(seeded.Outbound).where({ id: seeded.failed[0] })).one()) as { status: string };
    expect(status.status).toBe("queued");
    expect(errors).toEqual([]);
    await page.close();
  });
});
