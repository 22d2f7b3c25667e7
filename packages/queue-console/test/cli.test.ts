import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Engine } from "tempest-db-js";
import { createEngine, select } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../src/index.js";
import { runCli } from "../src/index.js";
import { seedQueue } from "./support/seed-queue.js";
import { targets } from "./support/targets.js";

/** runCli with its output captured. */
async function cli(argv: string[], env: NodeJS.ProcessEnv = {}) {
  let out = "";
  let err = "";
  const io: CliIo = { out: (t) => void (out += t), err: (t) => void (err += t), env, tty: false, stopped: new AbortController().signal };
  const code = await runCli(argv, io);
  return { code, out, err };
}

describe.each(targets)("tempest-queue on $name", (target) => {
  let engine: Engine;
  const table = "console_cli";
  const base = () => ["--url", target.url, "--table", table];
  beforeAll(() => {
    engine = createEngine(target.url, { poolSize: 2 });
  });
  afterAll(async () => {
    await engine.close();
  });

  it("stats, list and show agree with the table", async () => {
    const seeded = await seedQueue(engine, table);
    const stats = await cli(["stats", "--json", ...base()]);
    expect(stats.err).toBe("");
    expect(stats.code).toBe(0);
    const snapshot = JSON.parse(stats.out);
    expect(snapshot.depth).toEqual({ queued: 3, due: 3, sending: 1, failed: 2 });
    expect(snapshot.consumers.map((c: { consumer: string }) => c.consumer)).toEqual(["mail", "webhook", "sms"]);
    expect(snapshot.throughput[0]).toEqual({ minutesAgo: 0, sent: 1, failed: 2 });
    expect(snapshot.failing).toEqual([expect.objectContaining({ consumer: "webhook", failed: 2 })]);

    const human = await cli(["stats", ...base()]);
    expect(human.out).toContain(`queue ${table}`);
    expect(human.out).toMatch(/queued\s+due\s+sending\s+failed/);
    // Only newlines: the stored error texts' control characters never reach the terminal.
    expect([...human.out].filter((c) => c < " " && c !== "\n")).toEqual([]);

    const list = await cli(["list", "--status", "failed", "--json", ...base()]);
    expect(
      JSON.parse(list.out)
        .map((m: { id: string }) => m.id)
        .sort(),
    ).toEqual([...seeded.failed].sort());
    const mail = await cli(["list", "--status", "queued", "--consumer", "mail", "--limit", "2", "--json", ...base()]);
    expect(JSON.parse(mail.out)).toHaveLength(2);
    const shown = await cli(["show", seeded.sending[0] as string, "--json", ...base()]);
    expect(JSON.parse(shown.out)).toMatchObject({ id: seeded.sending[0], status: "sending", consumer: "sms" });
    expect((await cli(["show", "00000000-0000-4000-8000-000000000000", ...base()])).code).toBe(1);
  });

  it("retry, cancel and purge change exactly what they name", async () => {
    const seeded = await seedQueue(engine, table);
    const retried = await cli(["retry", seeded.failed[0] as string, "--json", ...base()]);
    expect(retried.err).toBe("");
    expect(JSON.parse(retried.out).count).toBe(1);
    const cancelled = await cli(["cancel", ...seeded.queued.slice(0, 2), seeded.sending[0] as string, "--json", ...base()]);
    expect(JSON.parse(cancelled.out).count).toBe(2); // the message being delivered is left alone

    const rows = (await engine.execute(select(seeded.Outbound)).all()) as { id: string; status: string }[];
    const statusOf = (id: string) => rows.find((r) => r.id === id)?.status;
    expect(statusOf(seeded.failed[0] as string)).toBe("queued");
    expect(statusOf(seeded.failed[1] as string)).toBe("failed");
    expect(seeded.queued.slice(0, 2).map(statusOf)).toEqual(["failed", "failed"]);
    expect(statusOf(seeded.sending[0] as string)).toBe("sending");

    expect((await cli(["retry", ...base()])).code).toBe(2); // no ids, no --consumer, no --all
    const all = await cli(["retry", "--all", "--json", ...base()]);
    expect(JSON.parse(all.out).count).toBe(1); // the cancelled ones stay cancelled

    const purged = await cli(["purge", "--older-than", "3600", ...base()]);
    expect(purged.out).toBe("deleted 0 settled messages\n");
  });

  it("watch --once draws one frame; a bad option is a usage error", async () => {
    await seedQueue(engine, table);
    const frame = await cli(["watch", "--once", ...base()]);
    expect(frame.code).toBe(0);
    expect(frame.out).toContain("consumers (unsettled, deepest first)");
    expect((await cli(["list", "--status", "gone", ...base()])).code).toBe(2);
    expect((await cli(["stats", "--limit", "-1", ...base()])).code).toBe(2);
    expect((await cli(["bogus", ...base()])).code).toBe(2);
  });
});

describe("the tempest-queue executable", () => {
  const bin = fileURLToPath(new URL("../bin/tempest-queue.mjs", import.meta.url));
  it("prints its usage, and refuses to run without a database", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "--help"]);
    expect(stdout).toContain("Usage: tempest-queue <command>");
    const failed = await promisify(execFile)(process.execPath, [bin, "stats"], { env: { PATH: process.env.PATH } }).catch((e) => e);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain("pass --url or set DATABASE_URL");
  });

  it("reads DATABASE_URL, and never prints the URL's password", async () => {
    const target = targets.find((t) => t.name === "PostgreSQL") as (typeof targets)[number];
    const url = new URL(target.url);
    url.password = "s3cret-pass";
    url.port = "1"; // nothing listens there
    const failed = await promisify(execFile)(process.execPath, [bin, "stats"], {
      env: { PATH: process.env.PATH, DATABASE_URL: url.toString() },
    }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).not.toContain("s3cret-pass");
  });
});
