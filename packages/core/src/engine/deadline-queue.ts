/** One entry of a DeadlineQueue: removed when its wait ends, or expired (`onExpire` called) at its deadline. */
export interface Deadline {
  readonly at: number;
  readonly onExpire: () => void;
}

/**
 * Deadlines of one length (an engine's `acquireTimeoutMs`) on a single timer. Each added entry ends
 * after the ones added before it, so the entries in insertion order are in deadline order and the
 * timer only ever waits for the first. An entry removed before its deadline costs a Set delete, not a
 * timer: the timer is left to fire, finds nothing due, and waits for the next entry or stops. A timer
 * per wait (created, then cleared a moment later when a connection was free) cost more than the
 * rest of an acquire.
 *
 * The timer keeps the process alive only while entries wait, as a timer per wait would.
 */
export class DeadlineQueue {
  readonly #ms: number;
  readonly #waiting = new Set<Deadline>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #held = false;

  constructor(ms: number) {
    this.#ms = ms;
  }

  /** Calls `onExpire` once this queue's length has passed, unless `remove` came first. */
  add(onExpire: () => void): Deadline {
    const entry: Deadline = { at: performance.now() + this.#ms, onExpire };
    this.#waiting.add(entry);
    if (this.#timer === undefined) this.#arm(this.#ms);
    else if (!this.#held) {
      this.#held = true;
      this.#timer.ref?.();
    }
    return entry;
  }

  remove(entry: Deadline): void {
    if (this.#waiting.delete(entry) && this.#waiting.size === 0 && this.#held) {
      this.#held = false;
      this.#timer?.unref?.();
    }
  }

  #arm(ms: number): void {
    this.#held = true;
    this.#timer = setTimeout(() => this.#fire(), Math.max(1, Math.ceil(ms)));
  }

  #fire(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const entry of this.#waiting) {
      if (entry.at > now) {
        this.#arm(entry.at - now);
        return;
      }
      this.#waiting.delete(entry);
      entry.onExpire();
    }
    this.#held = false;
  }
}
