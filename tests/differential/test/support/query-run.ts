import type { DialectCapabilities, Executable } from "tempest-db-js";
import { deleteFrom, dropTable, insert, UnsupportedFeatureError, ValidationError } from "tempest-db-js";
import type { Target } from "./databases.js";
import { buildQuery, neededCapabilities } from "./query-build.js";
import type { Data, Row } from "./query-schema.js";
import { MODELS } from "./query-schema.js";
import type { QuerySpec } from "./query-spec.js";
import { totallyOrdered } from "./query-spec.js";

// One query through every database, and what must hold between their answers: the same rows (as
// JavaScript values, in the same order where the order is total), or UnsupportedFeatureError exactly
// where the dialect's capability flags lack what the query needs. Any other error is a failure.

export type Outcome =
  | { readonly t: "rows"; readonly rows: readonly string[] }
  | { readonly t: "unsupported"; readonly feature: string }
  | { readonly t: "invalid"; readonly message: string }
  | { readonly t: "error"; readonly message: string };

/** A value as a string that tells apart what deepEqual would (types, -0, a Date's instant). */
export function normal(value: unknown): unknown {
  if (value === null) return null;
  if (value === undefined) return "undefined";
  if (value instanceof Date) return `Date(${Number.isNaN(value.getTime()) ? "invalid" : value.toISOString()})`;
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : Number.isNaN(value) ? "NaN" : value;
  if (typeof value === "string") return `'${value}'`;
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
    return Object.fromEntries(entries.map(([k, v]) => [k, normal(v)]));
  }
  return value;
}

/** Empties both tables and writes the case's rows, on one target, in one transaction (one commit). */
export async function load(target: Target, data: Data): Promise<void> {
  await target.prepare();
  await target.engine.transaction(async (tx) => {
    for (const [model, rows] of [
      [MODELS.B, data.b],
      [MODELS.A, data.a],
    ] as const) {
      await tx.execute(deleteFrom(model).allRows()).rowsAffected();
      if (rows.length > 0) await tx.execute(insert(model).values(rows as never)).rowsAffected();
    }
  });
}

export async function createTables(target: Target): Promise<void> {
  for (const model of [MODELS.A, MODELS.B]) await target.engine.execute(dropTable(model, { ifExists: true })).rowsAffected();
  await target.engine.createAll([MODELS.A, MODELS.B]);
}

export async function run(target: Target, statement: Executable<unknown>): Promise<Outcome> {
  try {
    const rows = (await target.engine.execute(statement).all()) as Row[];
    return { t: "rows", rows: rows.map((r) => JSON.stringify(normal(r))) };
  } catch (error) {
    if (UnsupportedFeatureError.isInstance(error)) return { t: "unsupported", feature: (error as UnsupportedFeatureError).feature };
    if (ValidationError.isInstance(error)) return { t: "invalid", message: (error as Error).message };
    return { t: "error", message: `${(error as Error).constructor.name}: ${(error as Error).message.slice(0, 300)}` };
  }
}

export const timing: Record<string, number> = {};

export interface Verdict {
  readonly problems: string[];
  /** What the query came to: "rows" (with how many), "refused" by some, "invalid" everywhere. */
  readonly answered: number;
  readonly rows: number;
  readonly refusedSomewhere: boolean;
  /** "label: feature" for each target that refused. */
  readonly refused: readonly string[];
  readonly invalid: boolean;
}

/** Runs the spec on every target (already loaded) and compares. */
export function compareQuery(targets: readonly Target[], spec: QuerySpec): Promise<Verdict> {
  return compareStatement(targets, () => buildQuery(spec), neededCapabilities(spec), totallyOrdered(spec));
}

/**
 * Builds a statement and runs it on every target (already loaded): the same rows everywhere (in the
 * same order when `total`, as multisets otherwise), or UnsupportedFeatureError exactly where a target
 * lacks one of `needs`.
 */
export async function compareStatement(
  targets: readonly Target[],
  build: () => Executable<unknown>,
  needs: ReadonlySet<keyof DialectCapabilities>,
  total: boolean,
): Promise<Verdict> {
  let statement: Executable<unknown> | undefined;
  try {
    statement = build();
  } catch (error) {
    // Refused while built: the same on every database, as long as it is a ValidationError.
    if (ValidationError.isInstance(error))
      return { problems: [], answered: 0, rows: 0, refusedSomewhere: false, refused: [], invalid: true };
    return {
      problems: [`building: ${(error as Error).message}`],
      answered: 0,
      rows: 0,
      refusedSomewhere: false,
      refused: [],
      invalid: false,
    };
  }
  const problems: string[] = [];
  const answers: { label: string; rows: readonly string[] }[] = [];
  const refused: string[] = [];
  let invalid = 0;
  const invalidAt: string[] = [];
  for (const target of targets) {
    const t0 = performance.now();
    const outcome = await run(target, statement);
    timing[target.label] = (timing[target.label] ?? 0) + performance.now() - t0;
    const caps = target.engine.capabilities as DialectCapabilities;
    const lacking = [...needs].filter((need) => !caps[need]);
    const at = target.label;
    if (outcome.t === "error") problems.push(`${at}: ${outcome.message}`);
    else if (outcome.t === "invalid") {
      invalid++;
      invalidAt.push(`${at}: ${outcome.message.slice(0, 200)}`);
    } else if (outcome.t === "unsupported") {
      refused.push(`${at}: ${outcome.feature}`);
      if (lacking.length === 0) problems.push(`${at}: refused "${outcome.feature}", its capabilities have everything the query needs`);
    } else if (lacking.length > 0) problems.push(`${at}: answered, but lacks ${lacking.join(", ")}`);
    else answers.push({ label: at, rows: total ? outcome.rows : [...outcome.rows].sort() });
  }
  if (invalid > 0 && invalid < targets.length) problems.push(`ValidationError on only some databases: ${invalidAt.join("; ")}`);
  const first = answers[0];
  for (const other of answers.slice(1)) {
    if (first && JSON.stringify(other.rows) !== JSON.stringify(first.rows)) {
      problems.push(
        `${other.label} answers ${other.rows.length} rows ${total ? "(ordered)" : "(as a multiset)"}, unlike ${first.label}:\n    ${first.label}: ${first.rows.join("\n      ")}\n    ${other.label}: ${other.rows.join("\n      ")}`,
      );
    }
  }
  return {
    problems,
    answered: answers.length,
    rows: first?.rows.length ?? 0,
    refusedSomewhere: refused.length > 0,
    refused,
    invalid: invalid === targets.length,
  };
}

/** The spec as text for a failure message (Dates as their ISO strings). */
export function showSpec(spec: QuerySpec): string {
  return JSON.stringify(spec);
}
