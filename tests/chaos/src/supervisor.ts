import type { ChildProcess } from "node:child_process";
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { enqueue, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import type { Engine } from "tempest-db-js";
import { createEngine, dropTable, select, sql } from "tempest-db-js";
import type { AbandonRecord, ChaosData, ChaosFindings, DeliveryRecord, WorkerLife } from "./analyze.js";
import { analyze } from "./analyze.js";
import { chaosModels } from "./models.js";
import type { ChaosTarget } from "./targets.js";
import type { JournalEntry, WorkerConfig } from "./worker-config.js";
import { POISON_CONSUMER } from "./worker-config.js";

export interface ChaosOptions {
  readonly target: ChaosTarget;
  readonly jobs: number;
  /** Worker processes kept running. */
  readonly workers: number;
  /** Mean time between two SIGKILLs (each between half and one and a half of it). */
  readonly killEveryMs: number;
  /** Stop killing after this long (counted from the first worker up); by default kills go on until every job is finished. */
  readonly killForMs?: number;
  /** Stop killing once no more than this share of the jobs is unfinished (default 0). */
  readonly killUntilUnfinished?: number;
  /** Mean simulated delivery time in ms (default 0: a few ms at most). */
  readonly deliveryMs?: number;
  readonly leaseSeconds: number;
  readonly batchSize: number;
  readonly lanes: number;
  readonly maxAttempts: number;
  /** Share of deliveries that fail transiently. */
  readonly failureRate: number;
  /** Share of jobs whose deliveries always fail (they must end `failed`). */
  readonly poisonRate: number;
  readonly pollMs: number;
  /** Give up (and report every unfinished job as lost) after this long. */
  readonly deadlineMs: number;
  /** Keep the tables and journals for inspection. */
  readonly keep?: boolean;
  readonly log?: (line: string) => void;
}

export interface ChaosReport extends ChaosFindings {
  readonly label: string;
  readonly durationMs: number;
  readonly timedOut: boolean;
  readonly tables: string;
}

const workerScript = fileURLToPath(new URL("../dist/worker.js", import.meta.url));

interface LiveWorker {
  readonly child: ChildProcess;
  readonly life: { -readonly [K in keyof WorkerLife]: WorkerLife[K] };
  readonly exited: Promise<void>;
  /** Resolves when the worker has its stop handler in place (or has exited). */
  readonly ready: Promise<void>;
}

/** The worker processes of one run: spawned, SIGKILLed and stopped here, each life recorded. */
class Fleet {
  readonly lives: LiveWorker["life"][] = [];
  readonly #live = new Map<string, LiveWorker>();
  readonly #ready = new Set<string>();
  #next = 0;
  #closing = false;

  constructor(
    readonly config: Omit<WorkerConfig, "workerId" | "journal">,
    readonly journalDir: string,
    readonly onUnexpectedExit: () => void,
    readonly onReady: () => void = () => {},
  ) {}

  get size(): number {
    return this.#live.size;
  }

  spawn(): void {
    const id = `w${++this.#next}`;
    const config: WorkerConfig = { ...this.config, workerId: id, journal: join(this.journalDir, `${id}.jsonl`) };
    // Workers run the built JavaScript, like a deployment; the test runner's loader options stay here.
    const { NODE_OPTIONS: _inherited, ...env } = process.env;
    const child = fork(workerScript, [], {
      execArgv: [],
      env: { ...env, CHAOS_WORKER: JSON.stringify(config) },
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    const life: LiveWorker["life"] = {
      id,
      pid: child.pid,
      startedAt: Date.now(),
      killedAt: undefined,
      exitedAt: undefined,
      exitCode: undefined,
      signal: undefined,
      stopped: false,
      stderr: "",
    };
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      life.stderr = (life.stderr + chunk).slice(-4000);
    });
    const exited = new Promise<void>((resolve) => {
      child.on("exit", (code, signal) => {
        life.exitedAt = Date.now();
        life.exitCode = code;
        life.signal = signal;
        this.#live.delete(id);
        if (life.killedAt === undefined && !life.stopped && !this.#closing) this.onUnexpectedExit();
        resolve();
      });
    });
    child.on("error", () => {}); // an IPC send to a dying child; the exit event tells the rest
    const ready = Promise.race([
      exited,
      new Promise<void>((resolve) =>
        child.once("message", () => {
          this.#ready.add(id);
          this.onReady();
          resolve();
        }),
      ),
    ]);
    this.lives.push(life);
    this.#live.set(id, { child, life, exited, ready });
  }

  /**
   * SIGKILLs a random live worker — one that is up and working when there is one (a process still
   * loading holds nothing worth killing) — and returns whether there was one.
   */
  killRandom(): boolean {
    const alive = [...this.#live.values()].filter((w) => w.life.killedAt === undefined && !w.life.stopped);
    const working = alive.filter((w) => this.#ready.has(w.life.id));
    const candidates = working.length > 0 ? working : alive;
    const victim = candidates[Math.floor(Math.random() * candidates.length)];
    if (!victim) return false;
    victim.child.kill("SIGKILL");
    victim.life.killedAt = Date.now();
    return true;
  }

  /** SIGKILLs whatever is still running (clean-up after a failure of the supervisor itself). */
  async killAll(): Promise<void> {
    this.#closing = true;
    const live = [...this.#live.values()];
    for (const w of live) w.child.kill("SIGKILL");
    await Promise.all(live.map((w) => w.exited));
  }

  /** Asks every worker to finish its batches and exit; SIGKILLs (and reports) those that do not within the bound. */
  async stopAll(timeoutMs: number): Promise<void> {
    this.#closing = true;
    const live = [...this.#live.values()];
    const all = Promise.all(
      live.map(async (w) => {
        w.life.stopped = true;
        // A worker still loading has no stop handler yet: wait until it says it is ready.
        await w.ready;
        if (w.child.connected) w.child.send("stop");
        await w.exited;
      }),
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    const outcome = await Promise.race([all, timeout]);
    clearTimeout(timer);
    if (outcome === "timeout") {
      for (const w of this.#live.values()) {
        w.life.stderr += `\n(did not stop within ${timeoutMs} ms; killed)`;
        w.child.kill("SIGKILL");
      }
      await all;
    }
  }
}

function readJournals(dir: string) {
  const deliveries: DeliveryRecord[] = [];
  const abandoned: AbandonRecord[] = [];
  const workerErrors: { worker: string; message: string }[] = [];
  let corrupt = 0;
  for (const file of readdirSync(dir)) {
    const worker = file.replace(/\.jsonl$/, "");
    const lines = readFileSync(join(dir, file), "utf8").split("\n");
    // A SIGKILL can cut the last line short (then its delivery had not returned): it ends without "\n".
    const complete = lines.slice(0, -1);
    for (const line of complete) {
      let entry: JournalEntry;
      try {
        entry = JSON.parse(line) as JournalEntry;
      } catch {
        corrupt++;
        continue;
      }
      if (entry.t === "delivered") deliveries.push({ worker, jobId: entry.job, attempt: entry.attempt, at: entry.at });
      else if (entry.t === "abandoned") abandoned.push({ worker, jobId: entry.job, attempt: entry.attempt, at: entry.at });
      else workerErrors.push({ worker, message: entry.message });
    }
  }
  return { deliveries, abandoned, workerErrors, corrupt };
}

async function countUnfinished(engine: Engine, table: string): Promise<number> {
  const n = await engine.execute(sql.raw(`SELECT COUNT(*) AS n FROM ${table} WHERE status IN ('queued', 'sending')`)).scalar();
  return Number(n);
}

/**
 * One chaos run on one database: enqueue, keep `workers` processes claiming, SIGKILL one at random
 * every ~killEveryMs and start a replacement, until every job is sent or failed; then stop the
 * survivors, read the logs back and check the invariants (see analyze.ts).
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  if (!existsSync(workerScript)) throw new Error(`${workerScript} is missing: build first (pnpm build)`);
  const log = options.log ?? (() => {});
  const { target } = options;
  await import(target.dialectPackage);
  const prefix = `chaos_${randomBytes(4).toString("hex")}`;
  const models = chaosModels(prefix);
  const { Job, Claim, Settlement, Reclaim, Anomaly } = models;
  const logTables = [Claim, Settlement, Reclaim, Anomaly];
  const engine = createEngine(target.url, { poolSize: 2 });
  const journalDir = mkdtempSync(join(tmpdir(), "tempest-chaos-journal-"));
  let passed = false;
  let fleet: Fleet | undefined;
  try {
    await ensureQueueSchema(engine, Job);
    await engine.createAll(logTables);

    const poisonEvery = options.poisonRate > 0 ? Math.round(1 / options.poisonRate) : 0;
    const messages = Array.from({ length: options.jobs }, (_, i) => ({
      consumer: poisonEvery > 0 && i % poisonEvery === poisonEvery - 1 ? POISON_CONSUMER : `c${i % 4}`,
      idempotencyKey: `job-${i}`,
    }));
    for (let i = 0; i < messages.length; i += 5000) {
      const { inserted } = await enqueue(engine, Job, messages.slice(i, i + 5000));
      if (inserted.length !== Math.min(5000, messages.length - i)) throw new Error(`enqueue inserted ${inserted.length} of a chunk`);
    }
    log(`${target.label}: ${options.jobs} jobs enqueued in ${prefix}_jobs; starting ${options.workers} workers`);

    const started = Date.now();
    let finished = false;
    let unfinished = options.jobs;
    let onFirstReady!: () => void;
    const firstReady = new Promise<void>((resolve) => {
      onFirstReady = resolve;
    });
    let timedOut = false;
    fleet = new Fleet(
      {
        url: target.url,
        dialectPackage: target.dialectPackage,
        prefix,
        batchSize: options.batchSize,
        lanes: options.lanes,
        leaseSeconds: options.leaseSeconds,
        maxAttempts: options.maxAttempts,
        failureRate: options.failureRate,
        deliveryMs: options.deliveryMs ?? 0,
        pollMs: options.pollMs,
      },
      journalDir,
      // A worker that died on its own is a finding (reported by analyze); keep the fleet at full strength.
      () => {
        if (!finished) fleet?.spawn();
      },
      () => onFirstReady(),
    );
    for (let i = 0; i < options.workers; i++) fleet.spawn();

    // The kill clock starts when the first worker is up, so that a short kill phase hits working processes.
    await Promise.race([firstReady, sleep(60_000, undefined, { ref: false })]);
    const killingSince = Date.now();
    const killer = (async () => {
      let kills = 0;
      while (!finished) {
        await sleep(options.killEveryMs * (0.5 + Math.random()));
        if (finished) break;
        if (options.killForMs !== undefined && Date.now() - killingSince >= options.killForMs) break;
        if (unfinished <= options.jobs * (options.killUntilUnfinished ?? 0)) break;
        if (fleet.killRandom()) {
          kills++;
          fleet.spawn();
        }
      }
      return kills;
    })();

    let lastLog = 0;
    for (;;) {
      unfinished = await countUnfinished(engine, Job.tablename).catch((error: unknown) => {
        log(`${target.label}: counting unfinished jobs failed (${String(error)}); trying again`);
        return unfinished;
      });
      const elapsed = Date.now() - started;
      if (unfinished === 0) break;
      if (elapsed > options.deadlineMs) {
        timedOut = true;
        break;
      }
      if (elapsed - lastLog >= 5000) {
        lastLog = elapsed;
        const kills = fleet.lives.filter((l) => l.killedAt !== undefined).length;
        log(
          `${target.label}: ${(elapsed / 1000).toFixed(0)} s, ${unfinished} unfinished, ${kills} kills, ${fleet.lives.length} workers started`,
        );
      }
      await sleep(200);
    }
    finished = true;
    await killer;
    await fleet.stopAll(60_000);
    const durationMs = Date.now() - started;

    const journals = readJournals(journalDir);
    const [jobs, claims, settlements, reclaims, anomalies] = await Promise.all([
      engine.execute(select(Job, ["id", "consumer", "status", "attempts"])).all(),
      engine.execute(select(Claim, ["jobId", "attempt", "worker", "batchId", "batchSize", "claimedAt", "leaseUntil"])).all(),
      engine.execute(select(Settlement, ["jobId", "attempt", "worker", "outcome", "applied", "settledAt"])).all(),
      engine.execute(select(Reclaim, ["rowCount"])).all(),
      engine.execute(select(Anomaly, ["worker", "kind", "detail"])).all(),
    ]);
    const data: ChaosData = {
      expectedJobs: options.jobs,
      maxAttempts: options.maxAttempts,
      batchSize: options.batchSize,
      poisonConsumer: POISON_CONSUMER,
      jobs,
      claims,
      settlements,
      reclaimedRows: reclaims.reduce((sum, r) => sum + r.rowCount, 0),
      anomalies,
      deliveries: journals.deliveries,
      abandoned: journals.abandoned,
      workerErrors: journals.workerErrors,
      corruptJournalLines: journals.corrupt,
      workers: fleet.lives,
    };
    const findings = analyze(data);
    const violations = timedOut ? [`did not finish within ${options.deadlineMs} ms`, ...findings.violations] : findings.violations;
    passed = violations.length === 0;
    for (const e of journals.workerErrors.slice(0, 5))
      log(`${target.label}: worker ${e.worker} error (retried): ${e.message.split("\n")[0]}`);
    return { ...findings, violations, label: target.label, durationMs, timedOut, tables: `${prefix}_*` };
  } finally {
    await fleet?.killAll();
    if (!options.keep && passed) {
      for (const model of [Job, ...logTables]) await engine.execute(dropTable(model, { ifExists: true })).rowsAffected();
      rmSync(journalDir, { recursive: true, force: true });
      if (target.dialect === "sqlite") rmSync(dirname(target.url.slice("sqlite://".length)), { recursive: true, force: true });
    } else {
      log(`${target.label}: kept tables ${prefix}_* and journals in ${journalDir}`);
    }
    await engine.close();
  }
}
