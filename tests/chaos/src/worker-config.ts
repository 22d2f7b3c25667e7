/** What the supervisor hands a worker process (as JSON in CHAOS_WORKER). */
export interface WorkerConfig {
  readonly workerId: string;
  readonly url: string;
  readonly dialectPackage: string;
  /** Table name prefix of this run (see chaosModels). */
  readonly prefix: string;
  /** This worker's append-only record of deliveries, abandoned claims and errors (JSON lines). */
  readonly journal: string;
  readonly batchSize: number;
  /** Claim–deliver–settle loops run concurrently in the process. */
  readonly lanes: number;
  readonly leaseSeconds: number;
  readonly maxAttempts: number;
  /** Share of deliveries that fail transiently (retried with backoff). */
  readonly failureRate: number;
  /** Mean simulated delivery time (uniform in 0..2×); 0 for a few ms at most. */
  readonly deliveryMs: number;
  /** Wait when nothing is due. */
  readonly pollMs: number;
}

/** One line of a worker's journal. */
export type JournalEntry =
  | { readonly t: "delivered"; readonly job: string; readonly attempt: number; readonly at: number }
  | { readonly t: "abandoned"; readonly job: string; readonly attempt: number; readonly at: number }
  | { readonly t: "error"; readonly message: string; readonly at: number };

/** The consumer whose deliveries always fail: those jobs must end `failed` after maxAttempts. */
export const POISON_CONSUMER = "poison";
