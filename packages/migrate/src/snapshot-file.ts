import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SchemaSnapshot } from "tempest-db-js";
import { SCHEMA_SNAPSHOT_VERSION } from "tempest-db-js";
import { MigrationStateError } from "./errors.js";
import { listMigrations } from "./migration-folder.js";

/**
 * Beside each generated migration, `<name>.snapshot.json`: the models' schema the migration leads
 * to. The next `generate` diffs the models against it (no database needed), and `check` uses it to
 * know which tables the project manages.
 */
export function snapshotPath(folder: string, name: string): string {
  return join(folder, `${name}.snapshot.json`);
}

export function writeSnapshot(folder: string, name: string, snapshot: SchemaSnapshot): string {
  const path = snapshotPath(folder, name);
  writeFileSync(path, `${JSON.stringify(snapshot, null, 2)}\n`);
  return path;
}

/** The snapshot of the last migration that has one, or undefined when none has. */
export function latestSnapshot(folder: string): { readonly name: string; readonly snapshot: SchemaSnapshot } | undefined {
  for (const file of listMigrations(folder).reverse()) {
    const path = snapshotPath(folder, file.name);
    if (!existsSync(path)) continue;
    let snapshot: SchemaSnapshot;
    try {
      snapshot = JSON.parse(readFileSync(path, "utf8")) as SchemaSnapshot;
    } catch (error) {
      throw new MigrationStateError(`${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (snapshot?.version !== SCHEMA_SNAPSHOT_VERSION || !Array.isArray(snapshot.tables)) {
      throw new MigrationStateError(`${path} is not a schema snapshot of version ${SCHEMA_SNAPSHOT_VERSION}.`);
    }
    return { name: file.name, snapshot };
  }
  return undefined;
}
