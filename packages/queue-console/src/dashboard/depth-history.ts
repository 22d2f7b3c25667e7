import type { QueueDepth } from "@tempest-db-js/queue-recipes";
import { queueDepth } from "@tempest-db-js/queue-recipes";
import type { QueueTarget } from "../queue-target.js";

/** One sample of the queue's depth, taken by the dashboard's server. */
export interface DepthSample extends QueueDepth {
  /** When it was taken (the server process's clock: it only places points on the chart). */
  readonly at: string;
}

/**
 * Samples `queueDepth` every `intervalMs` and keeps the last `size` samples: the data of the
 * dashboard's depth-over-time chart. One small indexed statement per sample; the timer does not keep
 * the process alive, and a failed sample is skipped (the chart shows a gap, the page the error).
 */
export class DepthHistory {
  private readonly samples: DepthSample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  lastError: string | undefined;

  constructor(
    private readonly target: QueueTarget,
    private readonly intervalMs: number,
    private readonly size: number,
  ) {}

  start(): void {
    if (this.timer) return;
    void this.sample();
    this.timer = setInterval(() => void this.sample(), this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  list(): readonly DepthSample[] {
    return this.samples;
  }

  /** Takes one sample now (also what the timer does); concurrent calls share one statement. */
  sample(): Promise<void> {
    this.running ??= (async () => {
      try {
        const depth = await queueDepth(this.target.db, this.target.model, this.target.options ?? {});
        this.samples.push({ at: new Date().toISOString(), ...depth });
        if (this.samples.length > this.size) this.samples.splice(0, this.samples.length - this.size);
        this.lastError = undefined;
      } catch (error) {
        this.lastError = (error as Error).message;
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }
}
