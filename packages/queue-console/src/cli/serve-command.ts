import { serveDashboard } from "../dashboard/serve-dashboard.js";
import type { QueueTarget } from "../queue-target.js";
import type { CliIo } from "./cli-io.js";
import type { ParsedCommand } from "./parse-command.js";
import { UsageError } from "./parse-command.js";

/** `tempest-queue serve`: the dashboard until Ctrl-C. The token comes from the environment, never the command line (ps shows that). */
export async function serveCommand(command: ParsedCommand, target: QueueTarget, io: CliIo): Promise<number> {
  const token = io.env.TEMPEST_QUEUE_TOKEN;
  if (!token || token.length < 16)
    throw new UsageError("serve needs TEMPEST_QUEUE_TOKEN, a token of at least 16 characters, in the environment");
  const served = await serveDashboard({
    db: target.db,
    model: target.model,
    queueOptions: target.options,
    token,
    allowWrites: command.allowWrites,
    port: command.port,
    host: command.host,
  });
  io.out(`dashboard on ${served.url}#token=… (${command.allowWrites ? "retry and cancel enabled" : "read-only"}); Ctrl-C stops\n`);
  await new Promise<void>((resolve) => {
    if (io.stopped.aborted) resolve();
    else io.stopped.addEventListener("abort", () => resolve(), { once: true });
  });
  await served.close();
  return 0;
}
