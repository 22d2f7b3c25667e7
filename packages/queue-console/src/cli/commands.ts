import { cancelQueued, listMessages, purgeSettled, retryFailed, showMessage } from "@tempest-db-js/queue-recipes";
import { queueSnapshot } from "../queue-snapshot.js";
import type { QueueTarget } from "../queue-target.js";
import type { CliIo } from "./cli-io.js";
import { cellText, formatTable } from "./format-table.js";
import type { ParsedCommand } from "./parse-command.js";
import { UsageError } from "./parse-command.js";
import { renderSnapshot } from "./render-snapshot.js";
import { serveCommand } from "./serve-command.js";
import { watchQueue } from "./watch-queue.js";

const STATUSES = ["queued", "sending", "sent", "failed"] as const;
type StatusRole = (typeof STATUSES)[number];

/** One command against the queue; resolves with the exit code. */
export async function runCommand(command: ParsedCommand, target: QueueTarget, io: CliIo): Promise<number> {
  const { db, model } = target;
  const options = target.options ?? {};
  const print = (value: unknown, human: () => string) => io.out(`${command.json ? JSON.stringify(value, jsonValue, 2) : human()}\n`);
  switch (command.command) {
    case "stats": {
      const snapshot = await queueSnapshot(target, { limit: command.limit });
      print(snapshot, () => renderSnapshot(snapshot, model.tablename));
      return 0;
    }
    case "list": {
      const status = (command.status ?? "failed") as StatusRole;
      if (!STATUSES.includes(status)) throw new UsageError(`--status must be one of ${STATUSES.join(", ")}`);
      const rows = await listMessages(db, model, { ...options, status, consumer: command.consumer, limit: command.limit ?? 50 });
      print(rows, () => {
        if (rows.length === 0) return `no ${status} messages`;
        const columns = Object.keys(rows[0] as object);
        return formatTable(
          columns,
          rows.map((row) => columns.map((c) => (row as Record<string, unknown>)[c])),
        );
      });
      return 0;
    }
    case "show": {
      const [id] = command.args;
      if (id === undefined || command.args.length !== 1) throw new UsageError("show takes one message id");
      const row = await showMessage(db, model, id, options);
      if (row === null) {
        io.err(`no message ${cellText(id)}\n`);
        return 1;
      }
      print(row, () =>
        Object.entries(row as object)
          .map(([k, v]) => `${k.padEnd(16)} ${cellText(v)}`)
          .join("\n"),
      );
      return 0;
    }
    case "retry": {
      const ids = command.args;
      if (ids.length === 0 && command.consumer === undefined && !command.all) {
        throw new UsageError("retry needs message ids, --consumer NAME, or --all for every failed message");
      }
      const result = await retryFailed(db, model, {
        ...options,
        ...(ids.length > 0 ? { ids } : {}),
        ...(command.consumer !== undefined ? { consumer: command.consumer } : {}),
      });
      print(result, () => `retried ${result.count} failed message${result.count === 1 ? "" : "s"}`);
      return 0;
    }
    case "cancel": {
      const ids = command.args;
      if (ids.length === 0) throw new UsageError("cancel takes the ids of queued messages");
      const result = await cancelQueued(db, model, {
        ...options,
        ids,
        ...(command.reason !== undefined ? { reason: command.reason } : {}),
      });
      print(result, () => `cancelled ${result.count} of ${ids.length} (only queued messages are cancelled)`);
      return 0;
    }
    case "purge": {
      if (command.olderThan === undefined) throw new UsageError("purge needs --older-than SECONDS");
      const include = command.include.flatMap((s) => s.split(",")).filter((s) => s !== "");
      for (const s of include) if (s !== "sent" && s !== "failed") throw new UsageError("--include takes sent and/or failed");
      const deleted = await purgeSettled(db, model, {
        ...options,
        olderThanSeconds: command.olderThan,
        ...(include.length > 0 ? { include: include as ("sent" | "failed")[] } : {}),
      });
      print({ deleted }, () => `deleted ${deleted} settled message${deleted === 1 ? "" : "s"}`);
      return 0;
    }
    case "watch":
      return watchQueue(command, target, io);
    case "serve":
      return serveCommand(command, target, io);
    case "help":
      return 0;
  }
}

/** JSON output: bigints as decimal strings, dates as ISO text (JSON.stringify's own). */
function jsonValue(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}
