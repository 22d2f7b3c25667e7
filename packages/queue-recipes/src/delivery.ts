import type { InferModel, ModelClass } from "tempest-db-js";

/** Why a delivery's `signal` aborted: its `reason` is a `DeliveryAbortError` with one of these. */
export type DeliveryAbortReason = "lease-lost" | "timeout" | "stopping";

/** The abort reason of a delivery's signal. */
export class DeliveryAbortError extends Error {
  readonly reason: DeliveryAbortReason;
  constructor(reason: DeliveryAbortReason, message: string) {
    super(message);
    this.name = "DeliveryAbortError";
    this.reason = reason;
  }
}

export interface DeliveryContext {
  /** Which attempt this is, 1 on the first. */
  readonly attempt: number;
  /**
   * Aborted when this delivery should stop: its `deliveryTimeoutMs` ran out, its claim was lost
   * (the heartbeat found it reclaimed, or could not renew it in time), or the drain was stopped and
   * the stop grace ran out. Its `reason` is a `DeliveryAbortError` saying which. After a timeout the
   * claim is still held and what the delivery returns still decides (see `deliveryTimeoutMs`); after
   * a lost lease or the stop grace its outcome no longer counts — another worker may take the message.
   */
  readonly signal: AbortSignal;
  /** The same signal as `signal` (kept from earlier versions, where it fired on the timeout only). */
  readonly timeout: AbortSignal;
  /** The caller's signal (`options.signal`): the drain is stopping; deliveries in flight may still finish. */
  readonly stopping: AbortSignal | undefined;
}

/**
 * Sends one message. Returning (or resolving) means delivered; throwing (or rejecting) means retry
 * later, or fail after `maxAttempts`. A returned or resolved `Error` object counts as a failure
 * too, since returning an error instead of throwing it is a common slip. Any other value is ignored.
 */
export type Deliver<M extends ModelClass<any>> = (message: InferModel<M>, context: DeliveryContext) => unknown;

/** A delivery in progress, and the context handed to `deliver` (its signal made only when asked for). */
export class Delivery implements DeliveryContext {
  readonly message: Record<string, unknown>;
  readonly attempt: number;
  readonly stopping: AbortSignal | undefined;
  /** 0 while undecided; then how it ended. */
  outcome: 0 | "sent" | "failed" | "lost" | "abandoned" = 0;
  #controller: AbortController | undefined;

  constructor(message: Record<string, unknown>, attempt: number, stopping: AbortSignal | undefined) {
    this.message = message;
    this.attempt = attempt;
    this.stopping = stopping;
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  get timeout(): AbortSignal {
    return this.signal;
  }

  abort(reason: DeliveryAbortError): void {
    this.#controller ??= new AbortController();
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }
}
