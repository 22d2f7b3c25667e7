/** Where the CLI writes, and what it reads: the process by default, buffers in tests. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** A terminal that understands cursor movement (watch redraws in place there). */
  readonly tty: boolean;
  /** Resolves when the user asks to stop (Ctrl-C), for the long-running commands. */
  readonly stopped: AbortSignal;
}

export function processIo(): CliIo {
  const controller = new AbortController();
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => controller.abort());
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    env: process.env,
    tty: process.stdout.isTTY === true,
    stopped: controller.signal,
  };
}
