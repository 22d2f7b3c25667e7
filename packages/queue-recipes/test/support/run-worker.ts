import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Target } from "./targets.js";
import { workerEnv } from "./worker-env.js";

export interface WorkerConfig {
  readonly table: string;
  readonly deliveries: string;
  readonly batchSize?: number;
  readonly concurrency?: number;
  readonly leaseSeconds?: number;
  readonly hangAfter?: number;
  /** drain({ fused: true }): settle and claim in one statement (PostgreSQL). */
  readonly fused?: boolean;
  /** Connect, report { ready }, then wait for go() before draining. */
  readonly barrier?: boolean;
}

export interface WorkerMessage {
  readonly result?: { sent: number; retried: number; failed: number; stale: number; reclaimed: number };
  readonly delivered?: number;
  readonly hanging?: number;
  readonly ready?: boolean;
}

const script = fileURLToPath(new URL("../fixtures/worker.mjs", import.meta.url));

/** Forks tests/fixtures/worker.mjs (built packages, like a real deployment) and collects what it reports. */
export function forkWorker(
  target: Target,
  config: WorkerConfig,
): {
  child: ChildProcess;
  messages: WorkerMessage[];
  exited: Promise<number | null>;
  next: () => Promise<WorkerMessage>;
  go: () => void;
} {
  // The test runner resolves packages to their TypeScript sources; a worker runs the built JS, as in production.
  const child = fork(script, [], {
    execArgv: [],
    env: workerEnv({ QUEUE_WORKER: JSON.stringify({ ...config, url: target.url, dialectPackage: target.dialectPackage }) }),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const messages: WorkerMessage[] = [];
  const waiters: ((m: WorkerMessage) => void)[] = [];
  child.on("message", (m) => {
    messages.push(m as WorkerMessage);
    waiters.shift()?.(m as WorkerMessage);
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const next = () => new Promise<WorkerMessage>((resolve) => waiters.push(resolve));
  const go = () => void child.send({ go: true });
  return { child, messages, exited, next, go };
}
