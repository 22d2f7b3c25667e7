/** Order statistics over samples; the benchmarks report medians, never means, so one GC pause cannot move a figure. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return (sorted[lo] as number) + ((sorted[hi] as number) - (sorted[lo] as number)) * (rank - lo);
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** Runs `fn` `warmup` times untimed, then `samples` times timed (ms each), with `setup` untimed before every run. */
export async function sample(
  samples: number,
  fn: () => unknown,
  options: { warmup?: number; setup?: () => unknown; teardown?: () => unknown } = {},
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < (options.warmup ?? 1) + samples; i++) {
    await options.setup?.();
    const started = performance.now();
    await fn();
    const elapsed = performance.now() - started;
    await options.teardown?.();
    if (i >= (options.warmup ?? 1)) out.push(elapsed);
  }
  return out;
}
