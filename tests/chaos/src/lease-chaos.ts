// The long-delivery chaos run: worker processes running work() with the heartbeat over jobs whose
// deliveries last longer than the lease, SIGKILLed at random and replaced. Checked at the end, from
// the workers' journals and the supervisor's record of kills:
// - no job delivered by two live workers at once: a delivery lasts from its "start" line to its
//   "end" line, or to its worker's SIGKILL when it has none (the kill time is taken after kill()
//   returns, so a delivery counts as running slightly longer than it did: overlaps can only be
//   over-reported);
// - no job whose delivery succeeded ends `failed`, and no job ends `failed` at all (deliveries never
//   fail here; kills and lost leases are not failures with a claim token);
// - nothing lost: every job ends `sent`.

import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { enqueue, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import { createEngine, dropTable, op, select } from "tempest-db-js";
import type { LeaseWorkerConfig } from "./lease-config.js";
import { leaseJobModel } from "./lease-config.js";
import type { ChaosTarget } from "./targets.js";

export interface LeaseChaosOptions {
  readonly target: ChaosTarget;
  readonly jobs: number;
  readonly workers: number;
  readonly lanes: number;
  readonly batchSize: number;
  readonly leaseSeconds: number;
  readonly minDeliveryMs: number;
  readonly maxDeliveryMs: number;
  readonly killEveryMs: number;
  /** Stop killing after this long; the survivors then finish. */
  readonly killForMs: number;
  readonly deadlineMs: number;
}

export interface LeaseChaosReport {
  readonly label: string;
  readonly jobs: number;
  readonly sent: number;
  readonly failed: number;
  readonly lost: number;
  readonly deliveries: number;
  readonly abortedDeliveries: number;
  readonly killedMidDelivery: number;
  /** Deliveries of one job by two workers at the same time, neither aborted nor killed before. */
  readonly overlaps: number;
  readonly successfulEndedFailed: number;
  readonly kills: number;
  readonly longestDeliveryMs: number;
  readonly durationMs: number;
  readonly violations: readonly string[];
}

interface Life {
  readonly id: string;
  readonly child: ChildProcess;
  readonly journal: string;
  killedAt: number | undefined;
  exit: Promise<void>;
}

const workerScript = fileURLToPath(new URL("../dist/lease-worker.js", import.meta.url));
const now = () => performance.timeOrigin + performance.now();

export async function runLeaseChaos(options: LeaseChaosOptions): Promise<LeaseChaosReport> {
  const started = now();
  const { target } = options;
  await import(target.dialectPackage);
  const table = `chaos_lease_${randomUUID().slice(0, 8)}`;
  const Job = leaseJobModel(table);
  const engine = createEngine(target.url, { poolSize: 2 });
  const dir = mkdtempSync(join(tmpdir(), "tempest-lease-chaos-"));
  const lives: Life[] = [];
  try {
    await ensureQueueSchema(engine, Job);
    await enqueue(
      engine,
      Job,
      Array.from({ length: options.jobs }, (_, i) => ({ consumer: `c${i % 7}` })),
      { notify: false },
    );

    const start = (): Life => {
      const id = `w${lives.length}`;
      const journal = join(dir, `${id}.jsonl`);
      const config: LeaseWorkerConfig = {
        url: target.url,
        dialectPackage: target.dialectPackage,
        table,
        journal,
        lanes: options.lanes,
        batchSize: options.batchSize,
        leaseSeconds: options.leaseSeconds,
        minDeliveryMs: options.minDeliveryMs,
        maxDeliveryMs: options.maxDeliveryMs,
      };
      const { NODE_OPTIONS: _inherited, ...env } = process.env;
      const child = fork(workerScript, [], {
        execArgv: [],
        env: { ...env, LEASE_WORKER: JSON.stringify(config) },
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      const life: Life = { id, child, journal, killedAt: undefined, exit: new Promise((resolve) => child.on("exit", () => resolve())) };
      lives.push(life);
      return life;
    };
    let alive: Life[] = Array.from({ length: options.workers }, start);

    const unfinished = async () => (await engine.execute(select(Job, ["id"]).where({ status: op.in(["queued", "sending"]) })).all()).length;
    const killUntil = now() + options.killForMs;
    const deadline = now() + options.deadlineMs;
    let kills = 0;
    while ((await unfinished()) > 0) {
      if (now() > deadline) throw new Error(`lease chaos on ${target.label}: jobs still unfinished after ${options.deadlineMs} ms`);
      const crashed = alive.find((l) => l.child.exitCode !== null);
      if (crashed) throw new Error(`lease chaos on ${target.label}: worker ${crashed.id} exited with ${crashed.child.exitCode} on its own`);
      await new Promise((resolve) => setTimeout(resolve, options.killEveryMs * (0.5 + Math.random())));
      if (now() < killUntil) {
        // Prefer a worker with a delivery in flight, so the quick run's few kills land mid-delivery.
        const busy = alive.filter(deliveringNow);
        const pool = busy.length > 0 ? busy : alive;
        const victim = pool[Math.floor(Math.random() * pool.length)] as Life;
        victim.child.kill("SIGKILL");
        victim.killedAt = now();
        kills++;
        alive = [...alive.filter((l) => l !== victim), start()];
      }
    }
    for (const life of alive) life.child.kill("SIGTERM");
    await Promise.all(lives.map((l) => l.exit));

    // Deliveries, from the journals.
    interface Span {
      job: string;
      worker: string;
      start: number;
      end: number;
      aborted: boolean;
      ended: boolean;
    }
    const spans: Span[] = [];
    for (const life of lives) {
      if (!existsSync(life.journal)) continue;
      const open = new Map<string, { start: number }>();
      for (const line of readFileSync(life.journal, "utf8").split("\n")) {
        let entry: { t: string; job: string; token: number; at: number; aborted?: boolean };
        try {
          entry = JSON.parse(line);
        } catch {
          continue; // the line a kill cut short, or the empty last one
        }
        const key = `${entry.job}:${entry.token}`;
        if (entry.t === "start") open.set(key, { start: entry.at });
        if (entry.t === "end") {
          const begun = open.get(key);
          open.delete(key);
          if (begun)
            spans.push({
              job: entry.job,
              worker: life.id,
              start: begun.start,
              end: entry.at,
              aborted: entry.aborted === true,
              ended: true,
            });
        }
      }
      for (const [key, begun] of open) {
        // Still running when the worker died (or stopped): it lasted until then.
        spans.push({
          job: key.split(":")[0] as string,
          worker: life.id,
          start: begun.start,
          end: life.killedAt ?? now(),
          aborted: false,
          ended: false,
        });
      }
    }
    const byJob = new Map<string, Span[]>();
    for (const s of spans) byJob.set(s.job, [...(byJob.get(s.job) ?? []), s]);
    const violations: string[] = [];
    let overlaps = 0;
    for (const [job, list] of byJob) {
      list.sort((a, b) => a.start - b.start);
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) {
          const a = list[i] as Span;
          const b = list[j] as Span;
          if (b.start < a.end && a.worker !== b.worker) {
            overlaps++;
            if (violations.length < 20)
              violations.push(
                `job ${job}: ${a.worker} [${a.start.toFixed(1)}, ${a.end.toFixed(1)}] overlaps ${b.worker} from ${b.start.toFixed(1)}`,
              );
          }
        }
      }
    }
    const rows = await engine.execute(select(Job, ["id", "status"])).all();
    const status = new Map(rows.map((r) => [r.id, r.status]));
    const succeeded = new Set(spans.filter((s) => s.ended && !s.aborted).map((s) => s.job));
    const successfulEndedFailed = [...succeeded].filter((id) => status.get(id) === "failed").length;
    const sent = rows.filter((r) => r.status === "sent").length;
    const failed = rows.filter((r) => r.status === "failed").length;
    const lost = options.jobs - sent - failed;
    if (successfulEndedFailed > 0) violations.push(`${successfulEndedFailed} jobs delivered successfully ended failed`);
    if (failed > 0) violations.push(`${failed} jobs ended failed (no delivery fails in this run)`);
    if (lost > 0) violations.push(`${lost} jobs lost`);
    return {
      label: target.label,
      jobs: options.jobs,
      sent,
      failed,
      lost,
      deliveries: spans.length,
      abortedDeliveries: spans.filter((s) => s.aborted).length,
      killedMidDelivery: spans.filter((s) => !s.ended).length,
      overlaps,
      successfulEndedFailed,
      kills,
      longestDeliveryMs: Math.round(Math.max(0, ...spans.map((s) => s.end - s.start))),
      durationMs: Math.round(now() - started),
      violations,
    };
  } finally {
    for (const life of lives) if (life.child.exitCode === null && life.child.signalCode === null) life.child.kill("SIGKILL");
    await engine
      .execute(dropTable(Job, { ifExists: true }))
      .rowsAffected()
      .catch(() => 0);
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** True when the worker's journal has a delivery started and not yet ended. */
function deliveringNow(life: { readonly journal: string }): boolean {
  if (!existsSync(life.journal)) return false;
  const text = readFileSync(life.journal, "utf8");
  let open = 0;
  for (const line of text.split("\n")) {
    if (line.includes('"t":"start"')) open++;
    else if (line.includes('"t":"end"')) open--;
  }
  return open > 0;
}
