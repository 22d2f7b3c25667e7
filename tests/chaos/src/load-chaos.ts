// The faults of a load run, while autocannon sends orders: worker processes SIGKILLed and replaced,
// the service's backends terminated (pg_terminate_backend, from an admin connection), and the private
// PostgreSQL restarted with `pg_ctl restart -m immediate` at evenly spaced times. Each loop stops at
// `until`; a restart in progress is always finished before stop() resolves.

import { setTimeout as sleep } from "node:timers/promises";
import type { Engine } from "tempest-db-js";
import { sql } from "tempest-db-js";
import type { LoadFleet } from "./load-fleet.js";
import type { RestartTimes, ThrowawayServer } from "./throwaway-server.js";

export interface LoadChaosOptions {
  readonly fleet: LoadFleet;
  readonly server: ThrowawayServer;
  /** A connection to the private server that is not the service's (it survives restarts by reconnecting). */
  readonly admin: Engine;
  readonly serviceApplicationName: string;
  readonly killEveryMs: number;
  readonly terminateEveryMs: number;
  readonly restarts: number;
  readonly durationMs: number;
}

export interface RestartRecord extends RestartTimes {
  readonly issuedAt: number;
}

export interface LoadChaosRecord {
  kills: number;
  /** Service backends terminated, and the rounds that did it. */
  terminatedBackends: number;
  terminateRounds: number;
  /** Largest number of service connections seen at a terminate round. */
  maxServiceConnections: number;
  readonly restarts: RestartRecord[];
}

/** Starts the fault loops; the returned promise resolves when all of them have stopped (at `durationMs`). */
export async function runLoadChaos(options: LoadChaosOptions): Promise<LoadChaosRecord> {
  const started = Date.now();
  const until = started + options.durationMs;
  const record: LoadChaosRecord = { kills: 0, terminatedBackends: 0, terminateRounds: 0, maxServiceConnections: 0, restarts: [] };
  let restarting = false;
  const jitter = (ms: number) => ms * (0.5 + Math.random());
  const waitUntil = async (at: number) => {
    if (at > Date.now()) await sleep(at - Date.now());
  };

  const kills = async () => {
    if (options.killEveryMs <= 0) return;
    for (let at = started + jitter(options.killEveryMs); at < until; at += jitter(options.killEveryMs)) {
      await waitUntil(at);
      if (options.fleet.killOne()) record.kills++;
    }
  };

  const terminations = async () => {
    if (options.terminateEveryMs <= 0) return;
    for (let at = started + jitter(options.terminateEveryMs); at < until; at += jitter(options.terminateEveryMs)) {
      await waitUntil(at);
      if (restarting) continue;
      try {
        const rows = await options.admin
          .execute(
            sql.expr`SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE application_name = ${options.serviceApplicationName}`,
          )
          .all();
        record.maxServiceConnections = Math.max(record.maxServiceConnections, rows.length);
        record.terminatedBackends += rows.filter((r) => r.killed === true).length;
        record.terminateRounds++;
      } catch {
        // The admin connection was lost to a restart that just began: the next round reconnects.
      }
    }
  };

  const restarts = async () => {
    for (let i = 1; i <= options.restarts; i++) {
      await waitUntil(started + (options.durationMs * i) / (options.restarts + 1));
      restarting = true;
      const issuedAt = Date.now();
      try {
        const times = await (options.server.restart as () => Promise<RestartTimes>)();
        record.restarts.push({ issuedAt, ...times });
      } finally {
        restarting = false;
      }
    }
  };

  await Promise.all([kills(), terminations(), restarts()]);
  return record;
}
