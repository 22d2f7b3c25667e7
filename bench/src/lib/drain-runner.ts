import type { Row } from "./report.js";
import { median } from "./stats.js";

/** One contender in a drain race: `load` queues `n` jobs (untimed), `drain` works them off (timed), `verify` checks it did. */
export interface DrainCase {
  readonly name: string;
  /** Rounds to time (default: the runner's). Slow peers may run fewer. */
  readonly rounds?: number;
  load(n: number): Promise<void>;
  drain(n: number): Promise<void>;
  /** Returns the number of jobs found completed; the runner checks it equals `n`. */
  completed(): Promise<number>;
}

/**
 * Times each case's drain of `n` jobs, rounds interleaved so that drift in the machine hits every
 * case alike. A drain that leaves jobs behind is an error, not a figure.
 */
export async function raceDrains(cases: readonly DrainCase[], n: number, rounds: number, warmupJobs: number): Promise<Row[]> {
  const times = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (const c of cases) {
    if (warmupJobs > 0) {
      await c.load(warmupJobs);
      await c.drain(warmupJobs);
    }
  }
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) {
      if (round >= (c.rounds ?? rounds)) continue;
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
