/** Resolves after `ms`, or early when `wake` is called or the signal aborts. */
export function interruptibleSleep(ms: number, signal: AbortSignal | undefined): { promise: Promise<void>; wake: () => void } {
  let wake = () => {};
  const promise = new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    wake = done;
  });
  return { promise, wake };
}
