import type { JsonValue } from "tempest-db-js";
import { column, Model, uniqueIndex } from "tempest-db-js";

/** A default written into the DDL as a literal: every quoting hazard at once. */
export const NOTE_DEFAULT = `it's a "default" with \\ and \\' and \`tick\` $1 ? -- ; /* % _ 😀 ''`;

export class HostileRow extends Model {
  static tablename = "hostile_rows";
  static naming = "snake_case";
  static indexes = [uniqueIndex<HostileRow>("hostile_rows_tag_unique", ["tag"])];

  id = column.integer().primaryKey();
  label = column.text();
  /** Unique: two values a folding collation would confuse collide here. */
  tag = column.varchar(40);
  data = column.json();
  note = column.text().notNull().default(NOTE_DEFAULT);
}

/** The tag a value gets: itself when it fits varchar(40) (counted in characters), else null. */
export function tagOf(value: string): string | null {
  return [...value].length <= 40 ? value : null;
}

/** A JSON document with the value as a key, a string, and nested. */
export function docOf(value: string): JsonValue {
  return { [value]: value, list: [value, { value }], n: 1 };
}

export class Moment extends Model {
  static tablename = "hostile_moments";
  id = column.integer().primaryKey();
  at = column.datetime().notNull();
}
