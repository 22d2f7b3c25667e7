import type { Engine, ModelClass, SchemaSnapshot } from "tempest-db-js";
import { introspect, modelsSnapshot, sql } from "tempest-db-js";
import { diffSchemas } from "./diff/diff-schemas.js";
import { latestSnapshot } from "./snapshot-file.js";

export interface DriftOptions {
  readonly engine: Engine;
  readonly models: readonly ModelClass<any>[];
  /** The migrations folder: its last snapshot adds the tables the project manages but the models dropped. */
  readonly folder: string;
  /** Never compared (default `tempest_migrations`). */
  readonly historyTable?: string;
}

export interface DriftReport {
  readonly drifted: boolean;
  /** What would turn the live schema into the models', one label each (`add column tickets.due_at`). */
  readonly changes: readonly string[];
  readonly live: SchemaSnapshot;
  readonly models: SchemaSnapshot;
}

/**
 * Compares the live schema with the models. Only the tables the project manages take part: the
 * models' tables and those in the last migration's snapshot, never the history table, so another
 * application's tables in the same database are not drift.
 */
export async function schemaDrift(options: DriftOptions): Promise<DriftReport> {
  const { engine } = options;
  // The models' snapshot follows the server the engine talks to (its version decides some types).
  await engine.execute(sql.raw("SELECT 1")).all();
  const wanted = modelsSnapshot(engine, options.models);
  const history = options.historyTable ?? "tempest_migrations";
  const managed = new Set([
    ...wanted.tables.map((t) => t.name),
    ...(latestSnapshot(options.folder)?.snapshot.tables.map((t) => t.name) ?? []),
  ]);
  managed.delete(history);
  const live = await introspect(engine, { tables: [...managed] });
  const plan = diffSchemas(live, wanted, { allowDestructive: "all" });
  const changes = plan.changes.map((c) => c.label);
  return { drifted: changes.length > 0, changes, live, models: wanted };
}
