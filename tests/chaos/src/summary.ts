import type { ChaosReport } from "./supervisor.js";

/** The run's figures, one column per database; the rows marked (must be 0) fail the run otherwise. */
export function summaryTable(reports: readonly ChaosReport[]): string {
  const rows: [string, (r: ChaosReport) => string][] = [
    ["jobs", (r) => String(r.jobs)],
    ["sent", (r) => String(r.sent)],
    ["failed (by policy; poison)", (r) => `${r.failed} (${r.failedPoison})`],
    ["kills (SIGKILL)", (r) => String(r.kills)],
    ["kills of a worker holding claims", (r) => String(r.killsHoldingClaims)],
    ["workers started", (r) => String(r.workersStarted)],
    ["claims", (r) => String(r.claims)],
    ["largest claim / batch size", (r) => `${r.largestClaim} / ${r.batchSize}`],
    ["reclaims (rows)", (r) => String(r.reclaims)],
    ["deliveries", (r) => String(r.deliveries)],
    ["sent jobs by deliveries", (r) => formatHistogram(r.deliveriesPerSentJob)],
    ["redeliveries (killed holder)", (r) => String(r.redeliveries - r.unexplainedDuplicateDeliveries)],
    ["duplicate claims (must be 0)", (r) => String(r.duplicateClaims)],
    ["duplicate completions (must be 0)", (r) => String(r.duplicateCompletions)],
    ["duplicate deliveries, unexplained (must be 0)", (r) => String(r.unexplainedDuplicateDeliveries)],
    ["lost (must be 0)", (r) => String(r.lost)],
    ["other violations (must be 0)", (r) => String(r.violations.length)],
    ["longest hold before settling", (r) => `${r.maxHoldMs} ms`],
    ["worker errors (retried)", (r) => String(r.workerErrors)],
    ["duration", (r) => `${(r.durationMs / 1000).toFixed(1)} s`],
    ["result", (r) => (r.violations.length === 0 ? "PASS" : "FAIL")],
  ];
  const header = ["", ...reports.map((r) => r.label)];
  const body = rows.map(([name, cell]) => [name, ...reports.map(cell)]);
  const widths = header.map((_, i) => Math.max(...[header, ...body].map((row) => (row[i] ?? "").length)));
  const line = (row: string[]) =>
    `| ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join(" | ")} |`;
  return [line(header), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...body.map(line)].join("\n");
}

function formatHistogram(histogram: Readonly<Record<number, number>>): string {
  return Object.entries(histogram)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([deliveries, jobs]) => `${deliveries}×: ${jobs}`)
    .join(", ");
}
