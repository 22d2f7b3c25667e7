/** Why a message is in the dead-letter state, as written to its `deadReason` column. */
export type DeadReason = "failed" | "reclaims" | "cancelled";

export const DEAD_REASONS: Readonly<Record<DeadReason, DeadReason>> = Object.freeze({
  /** Its deliveries failed `maxAttempts` times (or a worker marked it failed). */
  failed: "failed",
  /** Its lease ran out `maxReclaims` times: it crashed or hung every worker that took it (a poison message). */
  reclaims: "reclaims",
  /** An operator cancelled it while it was queued. */
  cancelled: "cancelled",
});
