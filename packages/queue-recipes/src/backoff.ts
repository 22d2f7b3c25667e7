import { ValidationError } from "tempest-db-js";
import { valueKind } from "./value-kind.js";

/** Exponential backoff: `min(maxSeconds, baseSeconds * factor^(attempts-1))`, then jittered. */
export interface BackoffOptions {
  /** Delay after the first failed attempt, before jitter (default 1). */
  readonly baseSeconds?: number;
  /** Growth per attempt (default 2). */
  readonly factor?: number;
  /** Cap before jitter (default 3600). */
  readonly maxSeconds?: number;
  /**
   * Share of the delay that is random, 0..1 (default 0.5): the delay is drawn from
   * `[d * (1 - jitter), d]`. 1 is "full jitter"; 0 retries in lockstep.
   */
  readonly jitter?: number;
}

/** A backoff policy: options, or a function from the attempts made so far to seconds. */
export type Backoff = BackoffOptions | ((attempts: number) => number);

/** Seconds to wait before the next attempt of a message that has failed `attempts` times. */
export function backoffSeconds(attempts: number, backoff: Backoff = {}): number {
  if (typeof backoff === "function") {
    const seconds = backoff(attempts);
    if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) {
      throw new ValidationError(`backoff(${attempts}) returned ${valueKind(seconds)}; expected seconds ≥ 0`);
    }
    return seconds;
  }
  const { baseSeconds = 1, factor = 2, maxSeconds = 3600, jitter = 0.5 } = backoff;
  if (!(jitter >= 0 && jitter <= 1)) throw new ValidationError("backoff.jitter must be between 0 and 1");
  const delay = Math.min(maxSeconds, baseSeconds * factor ** Math.max(0, attempts - 1));
  return delay * (1 - jitter * Math.random());
}
