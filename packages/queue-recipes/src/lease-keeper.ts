/** Renews the lease of these claims (`extendLease`) and resolves with the ones no longer held. */
export type RenewLease = (claims: readonly object[]) => Promise<readonly object[]>;

/**
 * The heartbeat of one claimed batch while its deliveries run: every `leaseMs / 3` it renews the
 * lease of the claims still held (`renew`: `extendLease`, on the database clock, fenced by the claim).
 * Claims the renewal no longer finds are reported lost at once. If no renewal has succeeded for the
 * lease minus one interval — counted from when the last successful one was *sent*, the claim's own
 * statement for the first — every claim still in flight is reported lost: by then another worker
 * may reclaim it, and the interval left is the margin that keeps two deliveries from overlapping.
 */
export class LeaseKeeper {
  readonly #renew: RenewLease;
  readonly #intervalMs: number;
  readonly #graceMs: number;
  readonly #inFlight: () => readonly object[];
  readonly #onLost: (claims: readonly object[], reason: "lost" | "expired") => void;
  readonly #onError: ((error: unknown) => void) | undefined;
  #confirmedAt: number;
  #beatTimer: NodeJS.Timeout | undefined;
  #deadlineTimer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  #stopped = false;

  constructor(
    renew: RenewLease,
    leaseMs: number,
    claimedAt: number,
    inFlight: () => readonly object[],
    onLost: (claims: readonly object[], reason: "lost" | "expired") => void,
    onError?: (error: unknown) => void,
  ) {
    this.#renew = renew;
    this.#intervalMs = leaseMs / 3;
    this.#graceMs = leaseMs - this.#intervalMs;
    this.#confirmedAt = claimedAt;
    this.#inFlight = inFlight;
    this.#onLost = onLost;
    this.#onError = onError;
    this.#armDeadline();
    this.#beatTimer = setTimeout(this.#beat, Math.max(0, claimedAt + this.#intervalMs - performance.now()));
  }

  /** Stops renewing; resolves once a renewal in progress has finished. */
  stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#beatTimer);
    clearTimeout(this.#deadlineTimer);
    return this.#beating ?? Promise.resolve();
  }

  #armDeadline(): void {
    clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = setTimeout(
      () => {
        if (this.#stopped) return;
        const claims = this.#inFlight();
        if (claims.length > 0) this.#onLost(claims, "expired");
      },
      Math.max(0, this.#confirmedAt + this.#graceMs - performance.now()),
    );
  }

  readonly #beat = (): void => {
    if (this.#stopped) return;
    const claims = this.#inFlight();
    if (claims.length === 0) return;
    const sentAt = performance.now();
    this.#beating = this.#renew(claims).then(
      (lost) => {
        this.#beating = undefined;
        if (this.#stopped) return;
        if (lost.length > 0) this.#onLost(lost, "lost");
        this.#confirmedAt = sentAt;
        this.#armDeadline();
        this.#beatTimer = setTimeout(this.#beat, Math.max(0, sentAt + this.#intervalMs - performance.now()));
      },
      (error: unknown) => {
        this.#beating = undefined;
        if (this.#stopped) return;
        this.#onError?.(error);
        // The deadline still stands; try again sooner than a full interval.
        this.#beatTimer = setTimeout(this.#beat, this.#intervalMs / 4);
      },
    );
  };
}
