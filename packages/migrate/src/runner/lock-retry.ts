import { QueryError, TransactionFailedError } from "tempest-db-js";
import type { RunContext } from "./run-context.js";

/** Gave up waiting for a lock (PostgreSQL lock_timeout, MySQL lock_wait_timeout) or was chosen as a deadlock victim. */
export function isLockWait(error: unknown): boolean {
  const e = TransactionFailedError.isInstance(error) ? (error as Error).cause : error;
  return QueryError.isInstance(e) && (e.kind === "lock-not-available" || e.kind === "lock-timeout" || e.kind === "deadlock");
}

/**
 * Runs `attempt` again, a bounded number of times with a growing pause, when it gave up waiting for
 * a lock: a migration queued behind a long transaction steps aside (so the workers queued behind
 * it go on) and tries again, rather than holding everyone up.
 */
export async function withLockRetries<T>(
  ctx: RunContext,
  name: string,
  what: string,
  retries: number,
  attempt: () => Promise<T>,
): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= retries || !isLockWait(error)) throw error;
      const reason = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
      ctx.emit({ event: "retry", name, what, attempt: n + 1, reason });
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** n + Math.random() * 250));
    }
  }
}
