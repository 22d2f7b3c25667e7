import type { Engine } from "tempest-db-js";
import { createEngine, redactUrl, TempestError } from "tempest-db-js";
import type { QueueTarget } from "../queue-target.js";
import { modelForTable } from "../queue-target.js";
import type { CliIo } from "./cli-io.js";
import { runCommand } from "./commands.js";
import { loadModel } from "./load-model.js";
import type { ParsedCommand } from "./parse-command.js";
import { parseCommand, USAGE, UsageError } from "./parse-command.js";

/** Runs `tempest-queue` with these arguments; resolves with the exit code (0 ok, 1 failed, 2 usage). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let command: ParsedCommand;
  try {
    command = parseCommand(argv, io.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`tempest-queue: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (command.command === "help") {
    io.out(USAGE);
    return 0;
  }
  if (!command.url) {
    io.err("tempest-queue: no database: pass --url or set DATABASE_URL\n");
    return 2;
  }
  let engine: Engine | undefined;
  try {
    engine = createEngine(command.url, { poolSize: 2 });
    const model = command.model ? await loadModel(command.model, process.cwd()) : await modelForTable(engine, command.table);
    const target: QueueTarget = { db: engine, model };
    return await runCommand(command, target, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`tempest-queue: ${error.message}\n`);
      return 2;
    }
    // The library's errors carry no bound value or password; anything else is shown by its message only.
    const message = TempestError.isInstance(error) ? `${error.name}: ${error.message}` : (error as Error)?.message;
    io.err(`tempest-queue: ${String(message).replaceAll(command.url, redactUrl(command.url))}\n`);
    return 1;
  } finally {
    await engine?.close();
  }
}
