import type { IntrospectOptions } from "../dialect/introspector.js";
import { requireIntrospector } from "../dialect/require-introspector.js";
import { ValidationError } from "../errors.js";
import type { SchemaSnapshot } from "../schema/schema-snapshot.js";
import { sortSnapshot } from "../schema/sort-snapshot.js";
import { Engine } from "./engine.js";

/**
 * The live schema of the engine's database (its current schema / database; SQLite: `main`) as a
 * SchemaSnapshot, read by the dialect's introspector through catalog statements that run like any
 * other (values bound, query events, typed errors). After `createAll(models)` it deep-equals
 * `modelsSnapshot(engine, models)`.
 */
export async function introspect(engine: Engine, options: IntrospectOptions = {}): Promise<SchemaSnapshot> {
  if (!(engine instanceof Engine)) throw new ValidationError("introspect takes an engine");
  const tables = options.tables;
  if (tables !== undefined && (!Array.isArray(tables) || tables.some((t) => typeof t !== "string"))) {
    throw new ValidationError("introspect: options.tables is a list of table names");
  }
  const access = engine.schemaAccess();
  const introspector = requireIntrospector(access.dialect, "introspection");
  await access.ready();
  const keyIndexes = options.foreignKeyIndexes === true;
  const snapshot = await introspector.introspect(access.reader, {
    tables: tables === undefined ? undefined : [...tables],
    foreignKeyIndexes: keyIndexes,
  });
  // Unless asked for, the indexes a database made for its keys are left out: see TableSnapshot.foreignKeyIndexes.
  const read = keyIndexes ? snapshot.tables : snapshot.tables.map(({ foreignKeyIndexes: _, ...table }) => table);
  // Sorted again here, so an introspector that forgets cannot make equal schemas compare unequal.
  return sortSnapshot(snapshot.dialect, read);
}
