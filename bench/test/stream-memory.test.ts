import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));

/** Rows in the smaller run; the larger reads four times as many. */
const N = 20_000;
/**
 * How much more the larger run may retain. Holding the 3N extra rows would take over 10 MiB (about
 * 230 bytes a row, as the `.all()` run below shows); the stream's batches of 500 take a fraction of one.
 */
const GROWTH_LIMIT_MIB = 2;

interface Report {
  readonly n: number;
  readonly retainedMiB: number;
}

/** The heap (and buffers) retained while reading n rows, in a fresh process (stream-memory-child.ts --heap). */
async function retained(db: string, n: number, mode: "stream" | "all"): Promise<Report> {
  const args = ["--expose-gc", "--import", "tsx", "src/stream-memory-child.ts", db, String(n), "500", "--heap"];
  const { stdout } = await run(process.execPath, mode === "all" ? [...args, "--all"] : args, { cwd: root, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split("\n").pop() as string) as Report;
}

/**
 * The memory goal of docs/streaming.md, checked on every run at a small scale: the memory a stream
 * retains does not grow with the rows. Heap after a forced collection, not RSS, which is too noisy at
 * these sizes (the full 100k / 1M RSS comparison is src/stream-memory.ts, run by hand).
 */
describe.concurrent("stream memory", () => {
  test.for(["postgres", "mysql", "sqlite"])("%s: reading 4N rows retains no more than reading N", async (db) => {
    const [small, large] = await Promise.all([retained(db, N, "stream"), retained(db, 4 * N, "stream")]);
    expect(large.n).toBe(4 * N);
    expect(large.retainedMiB - small.retainedMiB).toBeLessThan(GROWTH_LIMIT_MIB);
  });

  test("the check sees rows held: .all() over the same rows retains several times the limit more at 4N", async () => {
    const [small, large] = await Promise.all([retained("sqlite", N, "all"), retained("sqlite", 4 * N, "all")]);
    expect(large.retainedMiB - small.retainedMiB).toBeGreaterThan(4 * GROWTH_LIMIT_MIB);
  });
});
