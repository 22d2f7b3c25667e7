import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../../bin/tempest-migrate.mjs", import.meta.url));

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built `tempest-migrate` in a child process, as a person or a deploy script would. */
export function runCliProcess(args: readonly string[], cwd: string, env: Record<string, string> = {}): Promise<CliRun> {
  const { NODE_OPTIONS: _inherited, ...parentEnv } = process.env;
  const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...parentEnv, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}
