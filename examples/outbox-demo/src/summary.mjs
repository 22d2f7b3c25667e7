/** A two-column table of label / value, aligned, with a rule above and below. */
export function formatSummary(title, rows) {
  const labelWidth = Math.max(...rows.map(([label]) => label.length));
  const valueWidth = Math.max(...rows.map(([, value]) => String(value).length));
  const rule = `+${"-".repeat(labelWidth + 2)}+${"-".repeat(valueWidth + 2)}+`;
  const lines = rows.map(([label, value]) => `| ${label.padEnd(labelWidth)} | ${String(value).padStart(valueWidth)} |`);
  return [title, rule, ...lines, rule].join("\n");
}
