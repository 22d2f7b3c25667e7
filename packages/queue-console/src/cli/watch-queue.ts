import { setTimeout as sleep } from "node:timers/promises";
import { queueSnapshot } from "../queue-snapshot.js";
import type { QueueTarget } from "../queue-target.js";
import type { CliIo } from "./cli-io.js";
import type { ParsedCommand } from "./parse-command.js";
import { renderSnapshot } from "./render-snapshot.js";

const CLEAR = "\u001b[H\u001b[2J";

/**
 * Redraws the stats screen every `--interval` seconds until Ctrl-C (or after one frame with `--once`).
 * On a terminal each frame replaces the last; piped, frames follow each other, separated by a rule,
 * and with `--json` each frame is one line of JSON (for `jq`, or a log).
 */
export async function watchQueue(command: ParsedCommand, target: QueueTarget, io: CliIo): Promise<number> {
  for (let frame = 0; !io.stopped.aborted; frame++) {
    const snapshot = await queueSnapshot(target, { limit: command.limit ?? 10, minutes: 10 });
    if (command.json) io.out(`${JSON.stringify(snapshot)}\n`);
    else {
      const screen = renderSnapshot(snapshot, target.model.tablename);
      io.out(
        io.tty
          ? `${CLEAR}${screen}\n\nrefreshing every ${command.interval}s — Ctrl-C stops\n`
          : `${frame > 0 ? `${"=".repeat(60)}\n` : ""}${screen}\n`,
      );
    }
    if (command.once) break;
    try {
      await sleep(command.interval * 1000, undefined, { signal: io.stopped });
    } catch {
      break;
    }
  }
  return 0;
}
