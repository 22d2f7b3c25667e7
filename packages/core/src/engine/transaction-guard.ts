import type { DriverConnection } from "../dialect/driver.js";
import type { QueryError } from "../errors.js";
import { queryErrorClass } from "../errors.js";
import type { EngineCore } from "./engine-core.js";

const noop = (): void => {};

/**
 * The checks of one engine's transaction guards on a single timer, set for the nearest. A guard whose
 * transaction ends leaves the set; the timer is left to fire and, with no guard left, stops. A timer
 * per transaction (set at BEGIN, cleared at COMMIT a moment later) cost a queue's claim transaction
 * more than its own bookkeeping.
 */
class GuardClock {
  readonly #guards = new Set<TransactionGuard>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #at = Number.POSITIVE_INFINITY;
  #ticking = false;

  watch(guard: TransactionGuard): void {
    this.#guards.add(guard);
    if (!this.#ticking && (this.#timer === undefined || guard.checkAt < this.#at)) this.#arm(guard.checkAt);
  }

  unwatch(guard: TransactionGuard): void {
    this.#guards.delete(guard);
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#at = at;
    this.#timer = setTimeout(() => this.#tick(), Math.max(1, Math.ceil(at - performance.now())));
    this.#timer.unref?.();
  }

  #tick(): void {
    this.#timer = undefined;
    this.#at = Number.POSITIVE_INFINITY;
    this.#ticking = true;
    try {
      const now = performance.now();
      for (const guard of [...this.#guards]) {
        if (guard.checkAt > now) continue;
        this.#guards.delete(guard);
        guard.check();
      }
    } finally {
      this.#ticking = false;
    }
    let next = Number.POSITIVE_INFINITY;
    for (const guard of this.#guards) next = Math.min(next, guard.checkAt);
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }
}

const clocks = new WeakMap<EngineCore, GuardClock>();

/** What the guard watches of a transaction's statement queue (see Transaction). */
export interface GuardedLane {
  /** Statements issued and not yet settled. */
  readonly inFlight: number;
  /** performance.now() when the last queued statement settled (or the transaction began). */
  readonly idleSince: number;
  /** Statements run at once on a synchronous connection, counted instead of timed. */
  readonly ranAtOnce: number;
  /** Set when the guard fires: every statement issued from then on is refused with it. */
  expired: QueryError | undefined;
}

/**
 * One transaction's timers: `transactionTimeoutMs` from BEGIN and `idleInTransactionTimeoutMs` while
 * no statement is in flight, on one timer re-armed for the nearer deadline. When either passes, or the
 * engine closes, the guard fires: later statements are refused, a running one is cancelled, and
 * `expired` rejects, which ends transaction() at once even if the callback never settles.
 */
export class TransactionGuard {
  readonly #core: EngineCore;
  readonly #lane: GuardedLane;
  readonly #connection: DriverConnection;
  readonly #begun = performance.now();
  /** The lane's ranAtOnce at the last check, and the check's time when it had moved since the one before. */
  #ranAtOnce = 0;
  #ranSeenAt = Number.NEGATIVE_INFINITY;
  readonly #clock: GuardClock;
  /** performance.now() when the clock is to call check() next (while watched). */
  checkAt = Number.POSITIVE_INFINITY;
  #reject!: (error: QueryError) => void;
  #settle!: () => void;
  /** Rejects with the timeout error when the guard fires; never resolves. */
  readonly expired: Promise<never>;
  /** Resolves once the transaction has ended (committed, rolled back or cut). */
  readonly settled: Promise<void>;
  /** The cancel of a running statement did not happen (no driver support, or it failed): the connection must be cut. */
  cancelFailed = false;

  constructor(core: EngineCore, lane: GuardedLane, connection: DriverConnection) {
    this.#core = core;
    this.#lane = lane;
    this.#connection = connection;
    this.expired = new Promise<never>((_, reject) => {
      this.#reject = reject;
    });
    this.expired.catch(noop);
    this.settled = new Promise<void>((resolve) => {
      this.#settle = resolve;
    });
    core.openTransactions.add(this);
    let clock = clocks.get(core);
    if (clock === undefined) clocks.set(core, (clock = new GuardClock()));
    this.#clock = clock;
    this.check();
  }

  get fired(): QueryError | undefined {
    return this.#lane.expired;
  }

  /** Fires the guard when a bound has passed; otherwise asks the clock to check again when one may have. */
  check(): void {
    const { idleInTransactionTimeoutMs: idle, transactionTimeoutMs: total } = this.#core.settings;
    if (idle === 0 && total === 0) return;
    const now = performance.now();
    if (total > 0 && now - this.#begun >= total) {
      this.#fire(`ran longer than transactionTimeoutMs (${total} ms)`);
      return;
    }
    let next = total > 0 ? this.#begun + total - now : Number.POSITIVE_INFINITY;
    if (idle > 0) {
      // A statement run at once is counted, not timed (a clock read per row costs the row-at-a-time
      // path a few percent): a check that sees the count moved takes its own time as the last
      // statement's. Never early, and at most one check interval late, so checks come every idle / 8.
      if (this.#lane.ranAtOnce !== this.#ranAtOnce) {
        this.#ranAtOnce = this.#lane.ranAtOnce;
        this.#ranSeenAt = now;
      }
      if (this.#lane.inFlight === 0) {
        const idleFor = now - Math.max(this.#lane.idleSince, this.#ranSeenAt);
        if (idleFor >= idle) {
          this.#fire(`sat idle (no statement running) for idleInTransactionTimeoutMs (${idle} ms)`);
          return;
        }
        next = Math.min(next, idle - idleFor, idle / 8);
      } else next = Math.min(next, idle);
    }
    this.checkAt = now + Math.max(1, Math.ceil(next));
    this.#clock.watch(this);
  }

  /** Ends the transaction now (close()): as a timeout, with the reason in the message. */
  abort(reason: string): void {
    if (this.#lane.expired === undefined) this.#fire(`was ended because ${reason}`);
  }

  #fire(what: string): void {
    this.#clock.unwatch(this);
    const ErrorClass = queryErrorClass("transaction-timeout");
    const error = new ErrorClass({
      message: `${this.#core.dialect.name}: the transaction ${what}; it was rolled back, and statements issued on it from now on are refused`,
      sql: "(transaction)",
      params: [],
      kind: "transaction-timeout",
      cause: undefined,
    });
    this.#lane.expired = error;
    if (this.#lane.inFlight > 0) {
      const cancel = this.#connection.cancel;
      if (cancel === undefined) this.cancelFailed = true;
      else
        cancel.call(this.#connection).catch(() => {
          this.cancelFailed = true;
        });
    }
    this.#reject(error);
  }

  /** The callback is done (or the transaction ended): no timer fires any more. */
  stop(): void {
    this.#clock.unwatch(this);
  }

  /** The transaction has ended and its connection is released. */
  done(): void {
    this.stop();
    this.#core.openTransactions.delete(this);
    this.#settle();
  }
}
