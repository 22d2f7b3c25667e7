// The service under load: POST /orders with an Idempotency-Key header writes the order and enqueues
// its outbox message in one transaction. The key is the order's: a repeat of a key that already has
// an order creates nothing and answers 200 with the existing order (a first write answers 201), so a
// client may retry any request whose answer it did not get. A database that is down, restarting, or
// a pool with no free connection in time answers 503 with Retry-After: nothing the client sent is
// wrong, trying again later with the same key is safe. Anything else is a 500 (a bug: the load test
// counts them). Listens on 127.0.0.1 only.

import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { enqueue } from "@tempest-db-js/queue-recipes";
import type { Engine } from "tempest-db-js";
import { createEngine, insert, QueryError, select, sql, TransactionFailedError } from "tempest-db-js";
import { FULFILMENT, Order, Outbound } from "./load-models.js";

export interface OrderServiceOptions {
  readonly url: string;
  readonly poolSize: number;
  readonly acquireTimeoutMs: number;
  readonly transactionTimeoutMs: number;
  /** 0 (default): a free port. */
  readonly port?: number;
}

export interface OrderService {
  readonly port: number;
  readonly engine: Engine;
  /** Answers so far by status, and the messages of the 500s (at most 20). */
  readonly counts: Readonly<Record<number, number>>;
  readonly bugs: readonly string[];
  /** The 503s by the error kind behind them (`pool-timeout`, `connection`, …). */
  readonly unavailable: Readonly<Record<string, number>>;
  close(): Promise<void>;
}

const RETRY_LATER_KINDS = new Set(["connection", "pool-timeout", "transaction-timeout", "statement-timeout"]);

/** True for the errors a restart, a killed backend or a busy pool produce: the client should try again. */
export function isRetryLater(error: unknown): boolean {
  if (TransactionFailedError.isInstance(error)) return isRetryLater(error.cause);
  return QueryError.isInstance(error) && (RETRY_LATER_KINDS.has(error.kind) || error.retryable);
}

function kindOf(error: unknown): string {
  if (TransactionFailedError.isInstance(error)) return kindOf(error.cause);
  return QueryError.isInstance(error) ? error.kind : "unknown";
}

export async function startOrderService(options: OrderServiceOptions): Promise<OrderService> {
  const engine = createEngine(options.url, {
    poolSize: options.poolSize,
    acquireTimeoutMs: options.acquireTimeoutMs,
    transactionTimeoutMs: options.transactionTimeoutMs,
  });
  const counts: Record<number, number> = {};
  const bugs: string[] = [];
  const unavailable: Record<string, number> = {};
  const answer = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    counts[status] = (counts[status] ?? 0) + 1;
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };

  const placeOrder = async (key: string, item: string, quantity: number) =>
    engine.transaction(async (tx) => {
      const order = { id: randomUUID(), idempotencyKey: key, item, quantity, createdAt: new Date() };
      const created = await tx.execute(insert(Order).values(order).onConflictDoNothing(["idempotencyKey"]).returning()).all();
      if (created.length === 0) {
        // The key has an order already (committed, or committed while our insert waited on it).
        const existing = await tx.execute(select(Order).where({ idempotencyKey: key })).all();
        return { status: 200, order: existing[0] };
      }
      await enqueue(tx, Outbound, { consumer: FULFILMENT, idempotencyKey: key });
      return { status: 201, order: created[0] };
    });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    if (req.method === "GET" && req.url === "/health") {
      await engine.execute(sql.raw("SELECT 1 AS ok")).scalar();
      return answer(res, 200, { ok: true });
    }
    if (req.method !== "POST" || req.url !== "/orders") return answer(res, 404, { error: "not found" });
    const key = req.headers["idempotency-key"];
    let parsed: { item?: unknown; quantity?: unknown };
    try {
      parsed = JSON.parse(body);
    } catch {
      return answer(res, 400, { error: "body is not JSON" });
    }
    const { item, quantity } = parsed ?? {};
    if (typeof key !== "string" || key.length === 0 || key.length > 200)
      return answer(res, 400, { error: "Idempotency-Key header required" });
    if (typeof item !== "string" || !Number.isSafeInteger(quantity) || (quantity as number) < 1) {
      return answer(res, 400, { error: "item (string) and quantity (positive integer) required" });
    }
    const { status, order } = await placeOrder(key, item, quantity as number);
    if (!order) throw new Error(`no order for key ${key} after a conflicting insert`);
    return answer(res, status, order);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      if (isRetryLater(error)) {
        unavailable[kindOf(error)] = (unavailable[kindOf(error)] ?? 0) + 1;
        return answer(res, 503, { error: "temporarily unavailable" }, { "retry-after": "1" });
      }
      if (bugs.length < 20) bugs.push(String(error));
      answer(res, 500, { error: "internal error" });
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    engine,
    counts,
    bugs,
    unavailable,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await engine.close();
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      text += chunk;
      if (text.length > 65_536) req.destroy(new Error("body too large"));
    });
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}
