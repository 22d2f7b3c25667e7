import type { QueueSnapshot } from "../queue-snapshot.js";
import { bar, cellText, duration, formatTable } from "./format-table.js";

/**
 * The `stats` screen (and each frame of `watch`): every section of a snapshot as text. Ages are
 * measured against the database's clock read with the snapshot, not this machine's.
 */
export function renderSnapshot(snapshot: QueueSnapshot, table: string): string {
  const { depth } = snapshot;
  const { dueAt, ageSeconds, now } = snapshot.oldestDue;
  const lateness = dueAt && ageSeconds !== null ? `${duration(ageSeconds)} behind (due ${dueAt.toISOString()})` : "nothing due";
  const lines = [
    `queue ${table}`,
    "",
    formatTable(["queued", "due", "sending", "failed", "oldest due"], [[depth.queued, depth.due, depth.sending, depth.failed, lateness]]),
    "",
    "throughput, per minute (newest first)",
  ];
  const max = Math.max(1, ...snapshot.throughput.map((b) => b.sent + b.failed));
  for (const b of snapshot.throughput) {
    lines.push(
      `  ${String(b.minutesAgo).padStart(2)}m ago  ${String(b.sent).padStart(6)} sent ${String(b.failed).padStart(5)} failed  ${bar(b.sent + b.failed, max, 30)}`,
    );
  }
  lines.push("", "consumers (unsettled, deepest first)");
  lines.push(
    snapshot.consumers.length === 0
      ? "  none"
      : formatTable(
          ["consumer", "queued", "sending", "failed", "next due"],
          snapshot.consumers.map((c) => [c.consumer, c.queued, c.sending, c.failed, c.nextAttemptAt]),
        ),
  );
  lines.push("", "in flight (oldest lease first)");
  lines.push(
    snapshot.inFlight.length === 0
      ? "  none"
      : formatTable(
          ["id", "consumer", "attempts", "claimed"],
          snapshot.inFlight.map((c) => [
            c.id,
            c.consumer,
            c.attempts,
            c.claimedAt ? `${duration((now.getTime() - c.claimedAt.getTime()) / 1000)} ago` : null,
          ]),
        ),
  );
  lines.push("", "failing consumers");
  lines.push(
    snapshot.failing.length === 0
      ? "  none"
      : formatTable(
          ["consumer", "failed", "last failed", "last error"],
          snapshot.failing.map((f) => [f.consumer, f.failed, f.lastFailedAt, truncate(cellText(f.lastError), 80)]),
        ),
  );
  return lines.join("\n");
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
