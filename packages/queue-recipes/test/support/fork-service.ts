import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Span } from "./spans.js";
import type { Target } from "./targets.js";
import { workerEnv } from "./worker-env.js";

export interface ServiceConfig {
  readonly table: string;
  readonly deliveryMs?: number;
  readonly hang?: boolean;
  readonly batchSize?: number;
  readonly leaseSeconds?: number;
  readonly deliveryTimeoutMs?: number;
  readonly stopTimeoutMs?: number;
}

const script = fileURLToPath(new URL("../fixtures/service.mjs", import.meta.url));

/** Forks fixtures/service.mjs (built packages) and collects the spans and events it reports. */
export function forkService(target: Target, config: ServiceConfig) {
  const child: ChildProcess = fork(script, [], {
    execArgv: [],
    env: workerEnv({ QUEUE_SERVICE: JSON.stringify({ ...config, url: target.url, dialectPackage: target.dialectPackage }) }),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const spans: Span[] = [];
  const started: string[] = [];
  child.on("message", (m: { span?: Span; started?: string }) => {
    if (m.span) spans.push(m.span);
    if (m.started) started.push(m.started);
  });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on("exit", (code) => resolve({ code, at: performance.now() })),
  );
  return { child, spans, started, exited };
}
