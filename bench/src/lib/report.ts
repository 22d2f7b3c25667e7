/** One measured figure. `value` is a median unless `stat` says otherwise. */
export interface Row {
  readonly name: string;
  readonly value: number;
  readonly unit: "ms" | "µs" | "ns" | "s" | "MiB" | "jobs/s";
  readonly stat?: string;
  /**
   * Further figures shown beside the value: a number is a figure in the row's unit (p99); anything
   * else is shown as given — counts through `count(n)`, so that "500" never reads "500 ms".
   */
  readonly extra?: Readonly<Record<string, number | string>>;
}

/** A count for `Row.extra`: shown as a number, without the row's unit. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

export interface Check {
  readonly label: string;
  readonly measured: number;
  readonly op: "≤" | "≥";
  readonly target: number;
  readonly pass: boolean;
}

export interface Group {
  readonly title: string;
  readonly rows: readonly Row[];
  /** Ratio columns: each row divided by the named row's value. */
  readonly baselines: readonly string[];
  readonly checks: readonly Check[];
  readonly notes: readonly string[];
}

export interface SectionResult {
  readonly id: string;
  readonly title: string;
  readonly groups: readonly Group[];
}

export function check(label: string, measured: number, op: "≤" | "≥", target: number): Check {
  return { label, measured, op, target, pass: op === "≤" ? measured <= target : measured >= target };
}

/** `a / b` where a lower value is better (times): how many times b's cost a costs. */
export function ratio(rows: readonly Row[], name: string, baseline: string): number {
  const a = rows.find((r) => r.name === name);
  const b = rows.find((r) => r.name === baseline);
  if (!a || !b) throw new Error(`ratio: no row "${!a ? name : baseline}"`);
  return a.value / b.value;
}

export function fmt(value: number, unit: string): string {
  if (!Number.isFinite(value)) return String(value);
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : Math.abs(value) >= 1 ? 2 : 3;
  return `${value.toFixed(digits)} ${unit}`;
}

function pad(text: string, width: number, right = false): string {
  return right ? text.padStart(width) : text.padEnd(width);
}

export function formatSection(section: SectionResult): string {
  const lines: string[] = [`\n## ${section.title}`];
  for (const group of section.groups) {
    lines.push(`\n### ${group.title}`);
    const head = ["", group.rows.some((r) => r.stat) ? "stat" : "median", ...group.baselines.map((b) => `× ${b}`)];
    const extraKeys = [...new Set(group.rows.flatMap((r) => Object.keys(r.extra ?? {})))];
    head.push(...extraKeys);
    const table = [head];
    for (const row of group.rows) {
      const cells = [row.name, `${fmt(row.value, row.unit)}${row.stat ? ` (${row.stat})` : ""}`];
      for (const b of group.baselines) {
        const base = group.rows.find((r) => r.name === b);
        cells.push(base ? `${(row.value / base.value).toFixed(2)}×` : "-");
      }
      for (const k of extraKeys) {
        const v = row.extra?.[k];
        cells.push(v === undefined ? "" : typeof v === "number" ? fmt(v, row.unit) : v);
      }
      table.push(cells);
    }
    const widths = head.map((_, i) => Math.max(...table.map((r) => (r[i] ?? "").length)));
    for (const [i, r] of table.entries()) {
      lines.push(`  ${r.map((c, j) => pad(c, widths[j] as number, j > 0)).join("  ")}`);
      if (i === 0) lines.push(`  ${widths.map((w) => "-".repeat(w)).join("  ")}`);
    }
    for (const c of group.checks) {
      lines.push(`  target: ${c.label} ${c.op} ${c.target} → ${c.measured.toFixed(2)} ${c.pass ? "MET" : "NOT MET"}`);
    }
    for (const note of group.notes) lines.push(`  note: ${note}`);
  }
  return lines.join("\n");
}
