import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Target } from "./targets.js";
import { workerEnv } from "./worker-env.js";

const script = fileURLToPath(new URL("../fixtures/hold-lock.mjs", import.meta.url));

/** Starts a process that locks the queue table's rows (SQLite: the write lock); resolves once held. */
export async function holdLock(target: Target, table: string): Promise<{ release: () => Promise<void> }> {
  const child = fork(script, [], {
    execArgv: [],
    env: workerEnv({ HOLD_LOCK: JSON.stringify({ table, url: target.url, dialectPackage: target.dialectPackage }) }),
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.on("message", (m) => m === "locked" && resolve());
    child.on("exit", (code) => reject(new Error(`lock holder exited with ${code}`)));
  });
  return {
    release: async () => {
      child.send("release");
      await exited;
    },
  };
}
