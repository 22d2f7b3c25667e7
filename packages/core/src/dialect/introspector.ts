import type { SchemaSnapshot } from "../schema/schema-snapshot.js";

/**
 * The version of the introspector contract. A dialect's introspector states the one it was written
 * for; core takes versions from 1 up to this one.
 */
export const INTROSPECTOR_VERSION = 1;

/** How an introspector reads the catalog: one statement of the dialect's own catalog SQL, values bound. */
export interface CatalogReader {
  query(sql: string, params: readonly unknown[]): Promise<readonly Record<string, unknown>[]>;
}

export interface IntrospectOptions {
  /** Only these tables (database names); all user tables when absent. */
  readonly tables?: readonly string[] | undefined;
}

/**
 * The optional part of the dialect contract that reads a live schema into a SchemaSnapshot,
 * normalised so that the snapshot of models (`modelsSnapshot`) and the snapshot read back after
 * creating them are equal. A dialect without one still loads; migrations then refuse it by name.
 */
export interface Introspector {
  readonly version: number;
  introspect(reader: CatalogReader, options: IntrospectOptions): Promise<SchemaSnapshot>;
}
