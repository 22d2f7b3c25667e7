import type { MigrateEvent } from "../runner/migrate-event.js";

/** A statement shown on one line, cut to a width a terminal keeps. */
function short(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 100 ? `${line.slice(0, 97)}...` : line;
}

/** The progress line for an event, as people read it (written to stderr). */
export function humanEvent(e: MigrateEvent): string {
  switch (e.event) {
    case "lock-wait":
      return "waiting for the migration lock: another process is applying migrations";
    case "migration-start":
      return `${e.direction === "up" ? "applying" : "reverting"} ${e.name} (${e.steps} step${e.steps === 1 ? "" : "s"}${e.resumeAt > 0 ? `, resuming at step ${e.resumeAt + 1}` : ""})`;
    case "step-done":
      return `  [${e.step}/${e.steps}] ${short(e.what)} (${e.ms} ms)`;
    case "retry":
      return `  lock wait gave up on ${short(e.what)}; retry ${e.attempt}: ${e.reason}`;
    case "invalid-index":
      return `  dropping the invalid index ${e.index} left by a failed concurrent build`;
    case "log":
      return `  ${e.message}`;
    case "skipped":
      return `${e.name}: skipped, ${e.reason}`;
    case "migration-done":
      return `${e.direction === "up" ? "applied" : "reverted"} ${e.name} in ${e.ms} ms`;
  }
}
