import { ValidationError } from "tempest-db-js";
import { valueKind } from "./value-kind.js";

/**
 * The model fields the recipes read and write. The defaults are the guide's `Outbound` model; a
 * model whose fields are named differently maps them here (`{ fields: { status: "state" } }`).
 */
export interface QueueFields {
  readonly id: string;
  readonly consumer: string;
  readonly idempotencyKey: string;
  readonly status: string;
  readonly attempts: string;
  readonly nextAttemptAt: string;
  readonly updatedAt: string;
  /**
   * Optional: an integer column every claim and reclaim advances, the fence for settlements and
   * heartbeats. With it `attempts` counts failed deliveries only, so a reclaim after a lease expiry
   * is not an attempt against `maxAttempts`. Without it `attempts` is both the count and the fence.
   */
  readonly claimToken: string;
  /** Optional: a text column holding the last delivery error's message. */
  readonly lastError: string;
  /** Optional: a datetime column holding when the last delivery failed (database clock). */
  readonly lastErrorAt: string;
  /**
   * Optional: an integer column, not null. Claims take the lowest priority first (0 by default, so a
   * negative value is more urgent), and within one priority the message due first.
   */
  readonly priority: string;
  /**
   * Optional (dead-letter feature): an integer column counting lease expiries apart from failed
   * deliveries. A message reclaimed `maxReclaims` times goes to the dead-letter state.
   */
  readonly reclaims: string;
  /** Optional (dead-letter feature): a text column saying why a `failed` message is dead ("failed", "reclaims", "cancelled"). */
  readonly deadReason: string;
  /** Optional (dead-letter feature): a json column with the last attempts, newest last (see `AttemptRecord`). */
  readonly attemptHistory: string;
}

/** The fields a queue table may go without; the features that need them are then off. */
export const optionalFields = ["claimToken", "lastError", "lastErrorAt", "priority", "reclaims", "deadReason", "attemptHistory"] as const;
export type OptionalField = (typeof optionalFields)[number];

/** The values of the status field for each stage of a message. */
export interface QueueStatuses {
  readonly queued: string;
  readonly sending: string;
  readonly sent: string;
  readonly failed: string;
}

/** Options every recipe takes, so that all of them agree on how the table is read. */
export interface QueueOptions {
  /** Field names when they differ from the guide's model. */
  readonly fields?: Partial<QueueFields>;
  /** Status values when they differ from "queued" / "sending" / "sent" / "failed". */
  readonly statuses?: Partial<QueueStatuses>;
  /** The LISTEN/NOTIFY channel (default `queue_<tablename>`). */
  readonly channel?: string;
  /**
   * What settling a delivered message does to its row: `"mark"` (default) sets its status to `sent`
   * (kept until retention purges it); `"delete"` deletes it, in the same fenced statement, so that
   * the table holds only what is queued, in flight or dead. Failed (dead-letter) messages keep their
   * row and state either way, for `retryFailed` and the other operator's verbs. A deleted message's
   * idempotency key is free again at once: enqueueing the same (consumer, key) later inserts a new
   * message, as it does after retention purged the row.
   */
  readonly onSent?: "mark" | "delete";
}

export const defaultFields: QueueFields = Object.freeze({
  id: "id",
  consumer: "consumer",
  idempotencyKey: "idempotencyKey",
  status: "status",
  attempts: "attempts",
  nextAttemptAt: "nextAttemptAt",
  updatedAt: "updatedAt",
  claimToken: "claimToken",
  lastError: "lastError",
  lastErrorAt: "lastErrorAt",
  priority: "priority",
  reclaims: "reclaims",
  deadReason: "deadReason",
  attemptHistory: "attemptHistory",
});

export const defaultStatuses: QueueStatuses = Object.freeze({
  queued: "queued",
  sending: "sending",
  sent: "sent",
  failed: "failed",
});

/** How a delivered message is settled: `options.onSent`, "mark" by default; anything else is refused by name. */
export function onSentOf(options: QueueOptions, where: string): "mark" | "delete" {
  const onSent = options.onSent ?? "mark";
  if (onSent !== "mark" && onSent !== "delete")
    throw new ValidationError(`${where}: onSent is "mark" or "delete", got ${valueKind(onSent)}`);
  return onSent;
}
