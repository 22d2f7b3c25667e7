import { processIo } from "./cli-io.js";
import { runCli } from "./run-cli.js";

/** The `tempest-migrate` executable. */
export async function main(): Promise<void> {
  process.exitCode = await runCli(process.argv.slice(2), processIo());
}
