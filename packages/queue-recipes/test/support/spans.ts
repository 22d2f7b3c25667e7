import type { DeliveryContext } from "../../src/index.js";

/** One delivery as the receiver saw it: from its start until it finished or was told to stop. */
export interface Span {
  readonly message: string;
  readonly worker: string;
  readonly start: number;
  readonly end: number;
  readonly aborted: boolean;
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes on one machine. */
export const now = () => performance.timeOrigin + performance.now();

/**
 * A deliver that takes `ms`, or stops as soon as its signal aborts (then it throws the reason, as a
 * well-behaved delivery does), recording its span in `spans`.
 */
export function slowDeliver(worker: string, spans: Span[], ms: number) {
  return async (message: { id: string }, context: DeliveryContext) => {
    const start = now();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      context.signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    spans.push({ message: message.id, worker, start, end: now(), aborted: context.signal.aborted });
    if (context.signal.aborted) throw context.signal.reason;
  };
}

/** Pairs of spans of one message that overlap in time (each span ends when it finished or was aborted). */
export function overlaps(spans: readonly Span[]): [Span, Span][] {
  const byMessage = new Map<string, Span[]>();
  for (const span of spans) {
    const list = byMessage.get(span.message);
    if (list) list.push(span);
    else byMessage.set(span.message, [span]);
  }
  const out: [Span, Span][] = [];
  for (const list of byMessage.values()) {
    list.sort((a, b) => a.start - b.start);
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const a = list[i] as Span;
        const b = list[j] as Span;
        if (b.start < a.end) out.push([a, b]);
      }
    }
  }
  return out;
}
