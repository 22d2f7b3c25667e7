// What a load run reports, the recovery figures, and a plain-text summary of it.

import type { RestartRecord } from "./load-chaos.js";
import type { LoadOptions } from "./load-run.js";
import type { LoadFindings } from "./load-verify.js";

export interface ServiceStats {
  readonly counts: Record<string, number>;
  readonly bugs: string[];
  readonly unavailable: Record<string, number>;
}

export interface RestartRecovery extends RestartRecord {
  /** pg_ctl restart issued → pg_ctl reported the new server started. */
  readonly serverDownSeconds: number;
  /** pg_ctl restart issued → the first 2xx response that completed after the new server had started. */
  readonly recoverySeconds: number | undefined;
}

export interface LoadReport {
  readonly options: Omit<LoadOptions, "log"> & { log: undefined };
  readonly requestsPerSecond: number;
  readonly requests: number;
  readonly latencyP50Ms: number;
  readonly latencyP99Ms: number;
  readonly latencyMaxMs: number;
  /** Responses by status, as autocannon counted them. */
  readonly statuses: Record<string, number>;
  readonly non2xx: number;
  readonly clientErrors: number;
  readonly clientTimeouts: number;
  readonly distinctKeysSent: number;
  /** Answers by status, as the service counted them (including the final checks). */
  readonly serviceStatuses: Record<string, number>;
  /** The service's 503s by the error kind behind them. */
  readonly unavailableByKind: Record<string, number>;
  readonly kills: number;
  readonly terminatedBackends: number;
  readonly maxServiceConnectionsSeen: number;
  readonly restarts: readonly RestartRecovery[];
  readonly finalServiceConnections: number;
  readonly drainSeconds: number;
  readonly workerLives: number;
  readonly findings: LoadFindings;
  readonly violations: readonly string[];
}

/**
 * Recovery after each restart. A success counts only once it completed after pg_ctl said the new
 * server had started: before that the old server was gone (pg_ctl waits for it to stop), so an
 * earlier 2xx can only be a request the old server had already answered.
 */
export function recoveries(restarts: readonly RestartRecord[], successTimes: readonly number[]): RestartRecovery[] {
  return restarts.map((r) => {
    const first = successTimes.find((t) => t >= r.startedAt);
    return {
      ...r,
      serverDownSeconds: (r.startedAt - r.issuedAt) / 1000,
      recoverySeconds: first === undefined ? undefined : (first - r.issuedAt) / 1000,
    };
  });
}

export function formatLoadReport(report: LoadReport): string {
  const f = report.findings;
  const o = report.options;
  const lines = [
    `load: ${o.durationSec} s, ${o.connections} HTTP connections, service pool ${o.poolSize}, ${o.workers} workers`,
    `  throughput   ${report.requestsPerSecond.toFixed(0)} req/s (${report.requests} requests), latency p50 ${report.latencyP50Ms} ms, p99 ${report.latencyP99Ms} ms, max ${report.latencyMaxMs} ms`,
    `  statuses     ${JSON.stringify(report.statuses)} (non-2xx ${report.non2xx}; client errors ${report.clientErrors}, timeouts ${report.clientTimeouts})`,
    `  503s by kind ${JSON.stringify(report.unavailableByKind)}`,
    `  faults       ${report.kills} worker SIGKILLs (${report.workerLives} worker lives), ${report.terminatedBackends} service backends terminated, ${report.restarts.length} restarts`,
    ...report.restarts.map(
      (r, i) =>
        `  restart ${i + 1}    server down ${r.serverDownSeconds.toFixed(2)} s, recovery ${r.recoverySeconds === undefined ? "never" : `${r.recoverySeconds.toFixed(2)} s`}`,
    ),
    `  data         ${f.orders} orders, ${f.messages} messages (${report.distinctKeysSent} keys sent), ${f.deliveries} deliveries, ${f.receipts} receipts`,
    `  redelivery   ${f.redeliveries} redeliveries (${f.unexplainedRedeliveries} unexplained), ${f.claimsDeliveredTwice} claims delivered twice, drain ${report.drainSeconds.toFixed(1)} s`,
    `  workers      ${f.workerErrors} errors reported by the loops, deliveries cut off ${JSON.stringify(f.cutOff)}`,
    `  connections  service: ${report.finalServiceConnections} at the end (pool ${o.poolSize}), at most ${report.maxServiceConnectionsSeen} seen during the load`,
    report.violations.length === 0 ? "  violations   none" : `  VIOLATIONS\n${report.violations.map((v) => `    - ${v}`).join("\n")}`,
  ];
  return lines.join("\n");
}
