import { spawnSync } from "node:child_process";

export interface ChildRun {
  readonly ms: number;
  readonly stdout: string;
}

/**
 * Runs a command as a person would from a shell, and times it from spawn to exit: the runtime's
 * start, module loading and the work. The parent's NODE_OPTIONS (tsx's loader) is not passed on.
 */
export function timeChild(command: string, args: readonly string[], cwd: string, extraEnv: Record<string, string> = {}): ChildRun {
  const { NODE_OPTIONS: _inherited, ...parentEnv } = process.env;
  const env = { ...parentEnv, ...extraEnv };
  const started = performance.now();
  const child = spawnSync(command, args, { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  const ms = performance.now() - started;
  if (child.status !== 0) {
    const tail = `${child.stdout ?? ""}\n${child.stderr ?? ""}`.trim().split("\n").slice(-15).join("\n");
    throw new Error(`${args.join(" ")} exited ${child.status ?? child.signal} in ${cwd}:\n${tail}`);
  }
  return { ms, stdout: child.stdout };
}

/** `samples` timed runs of a child, with `setup` untimed before each and `warmup` untimed runs first. */
export async function sampleChild(
  samples: number,
  run: () => ChildRun,
  options: { warmup?: number; setup?: () => unknown; teardown?: () => unknown } = {},
): Promise<{ ms: number[]; last: ChildRun }> {
  const ms: number[] = [];
  let last: ChildRun | undefined;
  for (let i = 0; i < (options.warmup ?? 0) + samples; i++) {
    await options.setup?.();
    last = run();
    await options.teardown?.();
    if (i >= (options.warmup ?? 0)) ms.push(last.ms);
  }
  if (!last) throw new Error("sampleChild: no run");
  return { ms, last };
}
