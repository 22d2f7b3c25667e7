import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { DrainResult } from "../../src/index.js";
import type { Target } from "./targets.js";
import { workerEnv } from "./worker-env.js";

export interface OverrunWorkerConfig {
  readonly table: string;
  readonly deliveries: string;
  readonly leaseSeconds: number;
  readonly sleepMs: number;
  readonly deliveryHardTimeoutMs: number;
  readonly maxAttempts: number;
  readonly batchSize?: number;
  readonly concurrency?: number;
}

const script = fileURLToPath(new URL("../fixtures/overrun-worker.mjs", import.meta.url));

/**
 * Forks fixtures/overrun-worker.mjs (built packages) and collects what it reports. The worker connects
 * and waits: `ready` resolves once it has, and `go()` starts it.
 */
export function forkOverrunWorker(target: Target, config: OverrunWorkerConfig) {
  const child: ChildProcess = fork(script, [], {
    execArgv: [],
    env: workerEnv({ OVERRUN_WORKER: JSON.stringify({ ...config, url: target.url, dialectPackage: target.dialectPackage }) }),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const started: string[] = [];
  let report: { result: DrainResult; timedOut: string[] } | undefined;
  let onReady = () => {};
  let onGone = (_error: Error) => {};
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve;
    onGone = reject;
  });
  child.on("message", (m: { ready?: boolean; started?: string; result?: DrainResult; timedOut?: string[] }) => {
    if (m.ready) onReady();
    if (m.started) started.push(m.started);
    if (m.result) report = { result: m.result, timedOut: m.timedOut ?? [] };
  });
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code, signal) => {
      onGone(new Error(`the overrun worker exited (${code ?? signal}) before it was ready`));
      resolve(code);
    }),
  );
  ready.catch(() => {}); // awaited by the caller; a worker killed later must not report it unhandled
  const go = () => void child.send({ go: true });
  return { child, started, exited, ready, go, report: () => report };
}
