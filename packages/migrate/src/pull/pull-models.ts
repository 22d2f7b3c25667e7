import type { Dialect, Engine, ModelClass, SchemaSnapshot, TableSnapshot } from "tempest-db-js";
import { modelsSnapshot } from "tempest-db-js";
import { normalizeTable, sameJson } from "../diff/snapshot-compare.js";
import { buildModels } from "./build-models.js";
import type { PullOptions } from "./plan-pull.js";
import { planPull } from "./plan-pull.js";
import type { PulledSchema, PullWarning } from "./pulled-schema.js";
import { renderModelSource } from "./render-model-source.js";

export interface PullModelsOptions extends PullOptions {
  /**
   * The engine or dialect the schema was read with. Given, the pulled models are checked: their
   * `modelsSnapshot` must equal the schema, and every difference becomes a warning.
   */
  readonly check?: Engine | Dialect;
}

export interface PullResult {
  /** The TypeScript module: one exported class per table. */
  readonly source: string;
  /** The same models as live classes. */
  readonly models: readonly ModelClass[];
  /** What the models cannot say, and (with `check`) every difference between their snapshot and the schema. */
  readonly warnings: readonly PullWarning[];
  /** With `check`: whether `modelsSnapshot(models)` equals the schema, so pull → createAll → introspect gives it back. */
  readonly roundTrips: boolean | undefined;
}

/** Model classes for an existing schema (`tempest migrate pull`), so a team can adopt the library on the schema it has. */
export function pullModels(snapshot: SchemaSnapshot, options: PullModelsOptions = {}): PullResult {
  const planned = planPull(snapshot, options);
  let schema = planned.schema;
  if (options.check === undefined) {
    return {
      source: renderModelSource(schema, planned.warnings),
      models: buildModels(schema),
      warnings: planned.warnings,
      roundTrips: undefined,
    };
  }
  let differences = compare(snapshot, schema, options.check);
  if (differences.length > 0) {
    // sql.now() is the readable spelling; where the dialect writes it differently than the schema holds it, keep the text.
    schema = withRawNow(schema, new Set(differences.map((d) => d.column).filter((c): c is string => c !== undefined)));
    differences = compare(snapshot, schema, options.check);
  }
  const warnings = [...planned.warnings, ...differences.map(({ table, message }) => ({ table, message }))];
  return { source: renderModelSource(schema, warnings), models: buildModels(schema), warnings, roundTrips: differences.length === 0 };
}

interface Difference extends PullWarning {
  readonly column?: string;
}

function compare(snapshot: SchemaSnapshot, schema: PulledSchema, check: Engine | Dialect): Difference[] {
  const models = buildModels(schema);
  const pulled = modelsSnapshot(check, models);
  const differences: Difference[] = [];
  for (const expected of snapshot.tables) {
    const actual = pulled.tables.find((t) => t.name === expected.name);
    if (actual) differences.push(...tableDifferences(normalizeTable(expected), normalizeTable(actual)));
  }
  return differences;
}

function tableDifferences(expected: TableSnapshot, actual: TableSnapshot): Difference[] {
  const table = expected.name;
  const found: Difference[] = [];
  for (const column of expected.columns) {
    const got = actual.columns.find((c) => c.name === column.name);
    if (!got || sameJson(column, got)) continue;
    const keys = Object.keys(column).filter(
      (k) => !sameJson((column as unknown as Record<string, unknown>)[k], (got as unknown as Record<string, unknown>)[k]),
    );
    const show = (c: object) => JSON.stringify(Object.fromEntries(keys.map((k) => [k, (c as Record<string, unknown>)[k]])));
    found.push({
      table,
      column: column.name,
      message: `${column.name}: the model gives ${show(got)} where the schema has ${show(column)}`,
    });
  }
  const parts = ["primaryKey", "indexes", "foreignKeys"] as const;
  for (const part of parts) {
    if (!sameJson(expected[part], actual[part])) {
      found.push({
        table,
        message: `${part}: the models give ${JSON.stringify(actual[part])} where the schema has ${JSON.stringify(expected[part])}`,
      });
    }
  }
  return found;
}

function withRawNow(schema: PulledSchema, columns: ReadonlySet<string>): PulledSchema {
  return {
    ...schema,
    tables: schema.tables.map((table) => ({
      ...table,
      fields: table.fields.map((f) =>
        f.fallback?.kind === "now" && columns.has(f.column.name) && f.column.default?.kind === "sql"
          ? { ...f, fallback: { kind: "raw" as const, sql: f.column.default.sql } }
          : f,
      ),
    })),
  };
}
