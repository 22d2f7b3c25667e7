// autocannon against the order service on 127.0.0.1, bounded by `durationSec`. Each request carries
// an Idempotency-Key: a new one, or — a share `repeatShare` of the time — one of the last 64 keys
// sent, so repeats arrive both long after their first request and while it is still in flight. The
// body is derived from the key, so a repeat is the same order. Every 2xx completion time is kept for
// the recovery figures.

import autocannon from "autocannon";

export interface LoadClientOptions {
  readonly port: number;
  readonly connections: number;
  readonly durationSec: number;
  /** Prefix of every key of this run. */
  readonly runId: string;
  readonly repeatShare: number;
}

export interface LoadClientResult {
  readonly result: autocannon.Result;
  /** Epoch ms of each 2xx response, in order. */
  readonly successTimes: number[];
  readonly sentKeys: number;
}

export async function runLoadClient(options: LoadClientOptions): Promise<LoadClientResult> {
  const recent: string[] = [];
  let next = 0;
  const successTimes: number[] = [];
  let finish!: (error: unknown, result: autocannon.Result) => void;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = (error, result) => (error ? reject(error) : resolve(result));
  });
  const instance = autocannon(
    {
      url: `http://127.0.0.1:${options.port}`,
      connections: options.connections,
      duration: options.durationSec,
      timeout: 15,
      requests: [
        {
          method: "POST",
          path: "/orders",
          setupRequest(request) {
            let key: string;
            if (recent.length > 0 && Math.random() < options.repeatShare) {
              key = recent[Math.floor(Math.random() * recent.length)] as string;
            } else {
              key = `${options.runId}-${next++}`;
              recent.push(key);
              if (recent.length > 64) recent.shift();
            }
            const n = Number(key.slice(key.lastIndexOf("-") + 1));
            return {
              ...request,
              headers: { "content-type": "application/json", "idempotency-key": key },
              body: JSON.stringify({ item: `item-${n % 17}`, quantity: 1 + (n % 5) }),
            };
          },
        },
      ],
    },
    (error, result) => finish(error, result),
  );
  instance.on("response", (_client, statusCode) => {
    if (statusCode >= 200 && statusCode < 300) successTimes.push(Date.now());
  });
  const result = await done;
  return { result, successTimes, sentKeys: next };
}
