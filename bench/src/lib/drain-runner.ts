import type { Row } from "./report.js";
import { median } from "./stats.js";

/** One contender in a drain race: `load` queues `n` jobs (untimed), `drain` works them off (timed), `completed` tells how many it finished. */
export interface DrainCase {
  readonly name: string;
  /** Rounds to time (default: the runner's). Slow peers may run fewer. */
  readonly rounds?: number;
  /** Jobs drained untimed first, to warm the JIT and the connections (default: the runner's). */
  readonly warmupJobs?: number;
  load(n: number): Promise<void>;
  drain(n: number): Promise<void>;
  /** Returns the number of jobs found completed; the runner checks it equals `n`. */
  completed(): Promise<number>;
}

/**
 * Times each case's drain of `n` jobs. Rounds are interleaved, and the order rotates each round, so
 * that drift in the machine (this one is shared) hits every case alike. A drain that leaves jobs
 * behind is an error, not a figure.
 */
export async function raceDrains(cases: readonly DrainCase[], n: number, rounds: number, warmupJobs: number): Promise<Row[]> {
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (const c of cases) {
    const warmup = c.warmupJobs ?? warmupJobs;
    if (warmup > 0) {
      await c.load(warmup);
      await c.drain(warmup);
    }
  }
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + round) % cases.length] as DrainCase;
      if ((times.get(c.name)?.length ?? 0) >= (c.rounds ?? rounds)) continue;
      await c.load(n);
      const started = performance.now();
      await c.drain(n);
      const elapsed = performance.now() - started;
      const done = await c.completed();
      if (done !== n) throw new Error(`${c.name}: drained ${done} of ${n} jobs`);
      times.get(c.name)?.push(elapsed);
    }
  }
  return cases.map((c) => {
    const samples = times.get(c.name) ?? [];
    const ms = median(samples);
    return {
      name: c.name,
      value: ms,
      unit: "ms",
      stat: samples.length === 1 ? "1 run" : `median of ${samples.length}`,
      extra: { "jobs/s": Math.round((n / ms) * 1000).toLocaleString("en-US") },
    } satisfies Row;
  });
}
