import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createEngine, insert, select } from "tempest-db-js";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { TestDatabase } from "./support/engines.js";
import { openDatabase } from "./support/engines.js";
import { ensureBuilt } from "./support/ensure-built.js";
import { Outbound } from "./support/models.js";

const WORKER = fileURLToPath(new URL("./fixtures/claim-worker.mjs", import.meta.url));
const ROWS = 300;

/** A worker process driven line by line: `claim()` asks for one batch and resolves with its ids. */
class Worker {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending: ((ids: string[]) => void)[] = [];
  readonly #exited: Promise<void>;
  #buffer = "";
  #stderr = "";

  constructor(url: string, strategy: string, batch: number) {
    this.#child = spawn(process.execPath, [WORKER, url, strategy, String(batch)], { stdio: "pipe" });
    this.#child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      this.#buffer += chunk;
      for (let end = this.#buffer.indexOf("\n"); end >= 0; end = this.#buffer.indexOf("\n")) {
        const line = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 1);
        this.#pending.shift()?.(JSON.parse(line) as string[]);
      }
    });
    this.#child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.#stderr += chunk;
    });
    this.#exited = new Promise((resolve, reject) => {
      this.#child.on("error", reject);
      this.#child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`worker exited with ${code}: ${this.#stderr}`))));
    });
  }

  claim(): Promise<string[]> {
    const answer = new Promise<string[]>((resolve) => this.#pending.push(resolve));
    this.#child.stdin.write("claim\n");
    // A worker that dies fails the test instead of leaving it waiting.
    return Promise.race([answer, this.#exited.then(() => Promise.reject(new Error("worker exited early")))]);
  }

  stop(): Promise<void> {
    this.#child.stdin.end();
    return this.#exited;
  }
}

describe("two processes claiming from one WAL file", () => {
  let db: TestDatabase;

  beforeAll(() => ensureBuilt(), 120_000);

  beforeEach(async () => {
    db = openDatabase("file");
    await db.engine.createAll([Outbound]);
    const base = Date.parse("2026-01-01T00:00:00.000Z");
    const rows = Array.from({ length: ROWS }, (_, i) => ({
      id: `00000000-0000-4000-8000-${i.toString().padStart(12, "0")}`,
      consumer: "billing",
      status: "queued" as const,
      nextAttemptAt: new Date(base + i),
    }));
    await db.engine.execute(insert(Outbound).values(rows)).rowsAffected();
    // Let the workers have the file to themselves.
    await db.engine.close();
  });

  afterEach(() => db.close());

  it.each(["single", "twoStep", "autocommit"])("%s: both make progress and no row is claimed twice", async (strategy) => {
    const workers = [new Worker(db.url, strategy, 5), new Worker(db.url, strategy, 5)] as const;
    const a: string[] = [];
    const b: string[] = [];
    try {
      // Each round both workers claim at the same moment; stop when a round claims nothing.
      for (;;) {
        const [fromA, fromB] = await Promise.all([workers[0].claim(), workers[1].claim()]);
        if (fromA.length + fromB.length === 0) break;
        a.push(...fromA);
        b.push(...fromB);
      }
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
    }

    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    const all = [...a, ...b];
    expect(all).toHaveLength(ROWS);
    expect(new Set(all).size).toBe(ROWS);

    const check = createEngine(db.url);
    try {
      const rows = await check.execute(select(Outbound, ["status", "attempts"])).all();
      expect(rows).toHaveLength(ROWS);
      // attempts is incremented in SQL at every claim: 1 everywhere means claimed exactly once.
      expect(rows.every((r) => r.status === "sent" && r.attempts === 1)).toBe(true);
    } finally {
      await check.close();
    }
  });
});
