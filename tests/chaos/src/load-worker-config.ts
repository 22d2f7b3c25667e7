/** What the load driver hands a worker process (JSON in LOAD_WORKER). */
export interface LoadWorkerConfig {
  readonly url: string;
  readonly workerId: string;
  /** Errors this worker saw, one JSON line each (`{ t, at, message }`), written with writeSync. */
  readonly journal: string;
  readonly batchSize: number;
  readonly lanes: number;
  readonly leaseSeconds: number;
}

export interface WorkerJournalEntry {
  readonly t: "error" | "delivery-error" | "heartbeat-error" | "aborted";
  readonly at: number;
  readonly message: string;
}
