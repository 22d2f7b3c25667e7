/** Where the CLI writes: process.stdout / stderr, or buffers in tests. */
export interface CliIo {
  readonly cwd: string;
  out(text: string): void;
  err(text: string): void;
}

export function processIo(): CliIo {
  return {
    cwd: process.cwd(),
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
  };
}
