import type { Engine, ModelClass } from "tempest-db-js";
import type { Deliver } from "./delivery.js";
import type { DrainResult } from "./drain.js";
import type { WorkOptions } from "./work.js";
import { work } from "./work.js";

export interface RunWorkerOptions<M extends ModelClass<any> = ModelClass<any>> extends Omit<WorkOptions<M>, "signal"> {
  /** Signals that stop the worker (default SIGTERM and SIGINT). A second one exits at once, with code 130. */
  readonly signals?: readonly NodeJS.Signals[];
  /** Close the engine once stopped (default true). */
  readonly closeEngine?: boolean;
  /** End the process once stopped: `process.exit(0)`, or 1 if the worker failed (default true). */
  readonly exit?: boolean;
  /** Also stop when this signal aborts. */
  readonly signal?: AbortSignal;
  /** Called once a stop signal arrives, before anything is waited for. */
  readonly onSignal?: (signal: NodeJS.Signals) => void;
}

/**
 * A worker process's main loop: `work()` until SIGTERM or SIGINT, then a graceful stop — no new
 * claims, deliveries in flight get `stopTimeoutMs` (default 10 s) to finish and are settled, the
 * ones still running are given back to the queue — then the engine is closed and the process exits.
 * Resolves with the totals when `exit` is false. Keep `stopTimeoutMs` below your platform's kill
 * grace period (Kubernetes waits 30 s after SIGTERM by default).
 */
export async function runWorker<M extends ModelClass<any>>(
  db: Engine,
  model: M,
  deliver: Deliver<M>,
  options: RunWorkerOptions<M> = {},
): Promise<DrainResult> {
  const { signals = ["SIGTERM", "SIGINT"], closeEngine = true, exit = true, signal, onSignal, ...workOptions } = options;
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  if (signal?.aborted) stop.abort(signal.reason);
  else signal?.addEventListener("abort", onAbort, { once: true });
  const handler = (received: NodeJS.Signals) => {
    if (stop.signal.aborted) {
      // Asked twice: the operator wants out now. Claims in flight are left to their lease.
      process.exit(130);
    }
    onSignal?.(received);
    stop.abort(new Error(`received ${received}`));
  };
  for (const name of signals) process.on(name, handler);
  let result: DrainResult | undefined;
  let failed = false;
  try {
    result = await work(db, model, deliver, { ...workOptions, signal: stop.signal });
  } catch (error) {
    failed = true;
    if (!exit) throw error;
    console.error(error);
  } finally {
    for (const name of signals) process.off(name, handler);
    signal?.removeEventListener("abort", onAbort);
    if (closeEngine) await db.close().catch(() => {});
  }
  if (exit) process.exit(failed ? 1 : 0);
  return result as DrainResult;
}
