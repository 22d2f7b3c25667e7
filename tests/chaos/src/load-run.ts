// One load run: a private PostgreSQL, the order service (a child process, pool smaller than the
// HTTP concurrency), worker processes running runWorker(), autocannon for `durationSec` while
// runLoadChaos() kills workers, terminates the service's backends and restarts the server. Then the
// faults stop, the same service (never restarted) must answer a new order and its repeat, the workers
// drain the queue, and the invariants are read back (verifyLoad). The server and every process are
// gone when it returns, pass or fail.

import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createEngine, select, sql } from "tempest-db-js";
import { runLoadChaos } from "./load-chaos.js";
import { runLoadClient } from "./load-client.js";
import { LoadFleet } from "./load-fleet.js";
import { ensureLoadSchema, Outbound } from "./load-models.js";
import type { LoadReport, ServiceStats } from "./load-report.js";
import { recoveries } from "./load-report.js";
import { verifyLoad } from "./load-verify.js";
import type { OrderServiceOptions } from "./order-service.js";
import { throwawayPostgres } from "./throwaway-server.js";

export interface LoadOptions {
  readonly durationSec: number;
  readonly connections: number;
  readonly poolSize: number;
  readonly workers: number;
  readonly killEveryMs: number;
  readonly terminateEveryMs: number;
  readonly restarts: number;
  readonly repeatShare: number;
  /** The workers' lease: a SIGKILLed worker's claims come back after it. */
  readonly leaseSeconds: number;
  /** Bound on draining the queue after the load. */
  readonly drainLimitMs: number;
  readonly log?: (line: string) => void;
}

const SERVICE = "tempest_load_service";
const serviceScript = fileURLToPath(new URL("../dist/order-service-main.js", import.meta.url));
const withApp = (url: string, name: string) => `${url}?application_name=${name}`;

export async function runLoad(options: LoadOptions): Promise<LoadReport> {
  const log = options.log ?? (() => {});
  const violations: string[] = [];
  await import("@tempest-db-js/dialect-postgres");
  const server = await throwawayPostgres(55532);
  log(`private PostgreSQL on port ${server.port}`);
  const admin = createEngine(withApp(server.url, "tempest_load_admin"), { poolSize: 2, acquireTimeoutMs: 10_000 });
  const journalDir = mkdtempSync(join(tmpdir(), "tempest-load-"));
  let service: ChildProcess | undefined;
  const fleet = new LoadFleet(
    { url: withApp(server.url, "tempest_load_worker"), batchSize: 10, lanes: 2, leaseSeconds: options.leaseSeconds },
    journalDir,
  );
  try {
    await ensureLoadSchema(admin);
    const config: OrderServiceOptions = {
      url: withApp(server.url, SERVICE),
      poolSize: options.poolSize,
      acquireTimeoutMs: 2_000,
      transactionTimeoutMs: 5_000,
    };
    const { NODE_OPTIONS: _inherited, ...env } = process.env;
    const child = fork(serviceScript, [], {
      execArgv: [],
      env: { ...env, ORDER_SERVICE: JSON.stringify(config) },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    service = child;
    let serviceExit: string | undefined;
    child.once("exit", (code, signal) => {
      serviceExit = signal ?? String(code);
    });
    const port = await message<{ port: number }>(child, (m) => typeof m.port === "number", 30_000).then((m) => m.port);
    log(
      `service on 127.0.0.1:${port}, pool ${options.poolSize}; ${options.workers} workers; ${options.connections} connections for ${options.durationSec} s`,
    );
    fleet.start(options.workers);

    const runId = randomBytes(3).toString("hex");
    const [client, chaos] = await Promise.all([
      runLoadClient({ port, connections: options.connections, durationSec: options.durationSec, runId, repeatShare: options.repeatShare }),
      runLoadChaos({
        fleet,
        server,
        admin,
        serviceApplicationName: SERVICE,
        killEveryMs: options.killEveryMs,
        terminateEveryMs: options.terminateEveryMs,
        restarts: options.restarts,
        durationMs: options.durationSec * 1000 * 0.9,
      }),
    ]);
    log(
      `load done: ${client.result.requests.total} requests; ${chaos.kills} kills, ${chaos.terminatedBackends} backends terminated, ${chaos.restarts.length} restarts`,
    );

    // The same service process, after all of it: a new order, then its repeat.
    const after = await finalRequests(port, `${runId}-after`);
    if (serviceExit !== undefined) violations.push(`the service exited (${serviceExit})`);
    if (after.first !== 201 || after.repeat !== 200)
      violations.push(`after the load: a new order answered ${after.first}, its repeat ${after.repeat} (want 201, 200)`);

    const drainStarted = Date.now();
    const unfinished = async () =>
      (await admin.execute(select(Outbound, ["id"]).where({ status: { in: ["queued", "sending"] } })).all()).length;
    while ((await unfinished()) > 0 && Date.now() - drainStarted < options.drainLimitMs) await sleep(200);
    const drainMs = Date.now() - drainStarted;
    await fleet.stop();
    for (const l of fleet.unexpectedExits()) violations.push(`worker ${l.id} exited on its own (${l.exit})`);

    // The pool gives back what the faults took: no more connections than its size, none leaked.
    let serviceConnections = Number.POSITIVE_INFINITY;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(200)) {
      serviceConnections = Number(
        await admin.execute(sql.expr`SELECT COUNT(*) AS n FROM pg_stat_activity WHERE application_name = ${SERVICE}`).scalar(),
      );
      if (serviceConnections <= options.poolSize) break;
    }
    if (serviceConnections > options.poolSize)
      violations.push(`the service holds ${serviceConnections} connections, pool size ${options.poolSize}`);

    child.send("stop");
    const stats = (await message<{ stats: ServiceStats }>(child, (m) => m.stopped === true, 15_000)).stats;
    for (const bug of stats.bugs) violations.push(`service 500: ${bug}`);
    const findings = await verifyLoad(admin, fleet.lives);
    violations.push(...findings.violations);
    const recovery = recoveries(chaos.restarts, client.successTimes);
    for (const r of recovery)
      if (r.recoverySeconds === undefined) violations.push(`no successful request after the restart at ${r.issuedAt}`);
    const { result } = client;
    return {
      options: { ...options, log: undefined },
      requestsPerSecond: result.requests.average,
      requests: result.requests.total,
      latencyP50Ms: result.latency.p50,
      latencyP99Ms: result.latency.p99,
      latencyMaxMs: result.latency.max,
      statuses: Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0])),
      non2xx: result.non2xx,
      clientErrors: result.errors,
      clientTimeouts: result.timeouts,
      distinctKeysSent: client.sentKeys,
      serviceStatuses: stats.counts,
      unavailableByKind: stats.unavailable,
      kills: chaos.kills,
      terminatedBackends: chaos.terminatedBackends,
      maxServiceConnectionsSeen: chaos.maxServiceConnections,
      restarts: recovery,
      finalServiceConnections: serviceConnections,
      drainSeconds: drainMs / 1000,
      workerLives: fleet.lives.length,
      findings,
      violations,
    };
  } finally {
    await fleet.stop(2_000).catch(() => {});
    if (service && service.exitCode === null && service.signalCode === null) service.kill("SIGKILL");
    await admin.close().catch(() => {});
    await server.destroy();
    rmSync(journalDir, { recursive: true, force: true });
  }
}

/** A new order, then the same key again, retried on 503 for at most 15 s (the pool may still be reconnecting). */
async function finalRequests(port: number, key: string): Promise<{ first: number; repeat: number }> {
  const post = async () => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await fetch(`http://127.0.0.1:${port}/orders`, {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify({ item: "after", quantity: 1 }),
      });
      await res.arrayBuffer();
      if (res.status !== 503 || Date.now() > deadline) return res.status;
      await sleep(200);
    }
  };
  const first = await post();
  return { first, repeat: await post() };
}

function message<T>(child: ChildProcess, match: (m: Record<string, unknown>) => boolean, limitMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no message from the service within ${limitMs} ms`)), limitMs);
    const onMessage = (m: unknown) => {
      if (typeof m === "object" && m !== null && match(m as Record<string, unknown>)) {
        clearTimeout(timer);
        child.off("message", onMessage);
        resolve(m as T);
      }
    };
    child.on("message", onMessage);
    child.once("exit", () => reject(new Error("the service exited")));
  });
}
