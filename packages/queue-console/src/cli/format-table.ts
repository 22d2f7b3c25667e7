/** A plain text table: a header row, a rule, then rows, each column as wide as its widest cell. */
export function formatTable(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cells = [header, ...rows.map((row) => row.map(cellText))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? "").length)));
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [
    line(cells[0] as string[]),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...cells.slice(1).map((row) => line(row as string[])),
  ].join("\n");
}

/** A cell as one line: dates in ISO form, control characters (from stored error texts) made visible. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "-";
  if (value instanceof Date) return value.toISOString();
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  // An error text may hold newlines or terminal escapes: never let stored data steer the terminal.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => (c === "\n" ? "⏎" : "�"));
}

/** A horizontal bar of `width` cells for value / max. */
export function bar(value: number, max: number, width: number): string {
  if (max <= 0 || value <= 0) return "";
  return "█".repeat(Math.max(1, Math.round((value / max) * width)));
}

/** "12s", "4m 05s", "3h 02m", "2d 04h". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, "0")}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m`;
  return `${Math.floor(s / 86_400)}d ${String(Math.floor((s % 86_400) / 3600)).padStart(2, "0")}h`;
}
