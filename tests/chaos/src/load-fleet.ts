// The worker processes of a load run: started, SIGKILLed and replaced, stopped at the end. Every
// life is kept: which worker ids were killed (a redelivery by one of them is explained) and whether
// any exited on its own (a failure of the run).

import { type ChildProcess, fork } from "node:child_process";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { LoadWorkerConfig } from "./load-worker-config.js";

const workerScript = fileURLToPath(new URL("../dist/load-worker.js", import.meta.url));

export interface WorkerLife {
  readonly id: string;
  readonly journal: string;
  killedAt: number | undefined;
  /** Sent SIGTERM by stop(): it may exit 0 or, when not yet running runWorker(), by the signal. */
  stopped: boolean;
  /** Exit code or signal, once exited. */
  exit: string | undefined;
}

interface Live {
  readonly life: WorkerLife;
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
}

export class LoadFleet {
  readonly lives: WorkerLife[] = [];
  #live: Live[] = [];

  constructor(
    readonly config: Omit<LoadWorkerConfig, "workerId" | "journal">,
    readonly journalDir: string,
  ) {}

  start(count: number): void {
    for (let i = 0; i < count; i++) this.#spawn();
  }

  /** SIGKILLs a random live worker and starts its replacement; returns the victim's id. */
  killOne(): string | undefined {
    const victim = this.#live[Math.floor(Math.random() * this.#live.length)];
    if (!victim) return undefined;
    victim.child.kill("SIGKILL");
    victim.life.killedAt = Date.now();
    this.#live = this.#live.filter((l) => l !== victim);
    this.#spawn();
    return victim.life.id;
  }

  /** Workers that exited without being killed or stopped. */
  unexpectedExits(): WorkerLife[] {
    const clean = (l: WorkerLife) => l.exit === "0" || (l.stopped && l.exit === "SIGTERM");
    return this.lives.filter((l) => l.exit !== undefined && l.killedAt === undefined && !clean(l));
  }

  /** SIGTERM to every live worker (runWorker's graceful stop), SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    const live = this.#live;
    this.#live = [];
    for (const l of live) {
      l.life.stopped = true;
      l.child.kill("SIGTERM");
    }
    const all = Promise.all(live.map((l) => l.exited));
    if (await Promise.race([all.then(() => true), sleep(graceMs).then(() => false)])) return;
    for (const l of live) if (l.life.exit === undefined) l.child.kill("SIGKILL");
    await all;
  }

  #spawn(): void {
    const id = `w${this.lives.length}`;
    const life: WorkerLife = { id, journal: join(this.journalDir, `${id}.jsonl`), killedAt: undefined, stopped: false, exit: undefined };
    const config: LoadWorkerConfig = { ...this.config, workerId: id, journal: life.journal };
    const { NODE_OPTIONS: _inherited, ...env } = process.env;
    const child = fork(workerScript, [], {
      execArgv: [],
      env: { ...env, LOAD_WORKER: JSON.stringify(config) },
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const exited = new Promise<void>((resolve) =>
      child.once("exit", (code, signal) => {
        life.exit = signal ?? String(code);
        resolve();
      }),
    );
    this.lives.push(life);
    this.#live.push({ life, child, exited });
  }
}
