/**
 * What a drain (and so `work` and `runWorker`) reports as it goes, for metrics and traces: feed
 * `onEvent` to Prometheus, OpenTelemetry or a log without patching the recipes. Durations are
 * milliseconds of this process's monotonic clock (`performance.now()`).
 */
export type QueueEvent =
  /** One claim statement: how many messages it took (0 when nothing was due) and how long it took. */
  | { readonly kind: "claim"; readonly count: number; readonly durationMs: number }
  /** Expired claims put back in the queue by this worker, and how long the statement took. */
  | { readonly kind: "reclaim"; readonly count: number; readonly durationMs: number }
  /**
   * A claimed batch delivered and settled: the outcomes, and the time from the claim to the last
   * settlement (the batch's delivery latency as this worker saw it).
   */
  | {
      readonly kind: "settle";
      readonly sent: number;
      readonly retried: number;
      readonly failed: number;
      readonly stale: number;
      readonly durationMs: number;
    };

export type QueueEventKind = QueueEvent["kind"];

/** Calls the listener, if any; a listener that throws never stops the drain (metrics are not worth a lost batch). */
export function emitEvent(listener: ((event: QueueEvent) => void) | undefined, event: QueueEvent): void {
  if (listener === undefined) return;
  try {
    listener(event);
  } catch {
    // Ignored on purpose: see above.
  }
}
