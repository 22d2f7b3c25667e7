import { sql } from "../expression/sql.js";
import { column } from "../schema/column.js";
import { index, uniqueIndex } from "../schema/index.js";
import { Model } from "../schema/model.js";

/**
 * Models for the schema round trip: every column kind, nullability, value and expression defaults,
 * a random uuid default, enums, unique columns, a composite primary key, partial indexes, foreign
 * keys with each ON DELETE action and a self-reference. Everything here is portable: a partial
 * unique index only excludes NULLs of its own columns (MySQL drops that predicate), and the other
 * partial index is not unique (MySQL drops its predicate too, it only changes speed).
 */
export class SchemaParent extends Model {
  static tablename = "tempest_schema_parents";
  static naming = "snake_case";
  static indexes = [
    index<SchemaParent>("tempest_schema_parents_open", ["status", "createdAt"]).where({ status: "open", ratio: { gt: 0 } }),
    index<SchemaParent>("tempest_schema_parents_name", ["name"]),
  ];

  id = column.integer().primaryKey();
  code = column.varchar(20).notNull().unique();
  name = column.text().notNull().default("unnamed 'quoted'");
  createdAt = column.datetime().notNull().default(sql.now());
  startsAt = column.datetime().default(new Date("2026-01-02T03:04:05.678Z"));
  active = column.boolean().notNull().default(true);
  archived = column.boolean().default(false);
  ratio = column.real().default(1.5);
  amount = column.numeric(12, 2).notNull().default("0.00");
  looseAmount = column.numeric();
  big = column.bigint().default(9007199254740993n);
  negative = column.integer().default(-7);
  computed = column.integer().default(sql.raw("2 + 3"));
  day = column.date().default("2026-01-02");
  doc = column.json().default({ a: 1, b: [true, null] });
  blob = column.bytes();
  token = column.uuid().notNull().defaultRandom();
  plainUuid = column.uuid();
  status = column.enum("open", "closed", "on hold").notNull().default("open");
  label = column.varchar(255);
  parentId = column.integer().references(() => SchemaParent, "id", { onDelete: "set null" });
}

export class SchemaChild extends Model {
  static tablename = "tempest_schema_children";
  static naming = "snake_case";
  static indexes = [
    uniqueIndex<SchemaChild>("tempest_schema_children_note", ["parentId", "note"]).where({ note: { isNull: false } }),
    index<SchemaChild>("tempest_schema_children_kind", ["kind", "position"]),
  ];

  parentId = column
    .integer()
    .notNull()
    .references(() => SchemaParent, "id", { onDelete: "cascade" })
    .primaryKey();
  position = column.integer().primaryKey();
  note = column.text();
  kind = column.enum("a", "b").notNull();
  restrictRef = column.integer().references(() => SchemaParent, "id", { onDelete: "restrict" });
  noActionRef = column.integer().references(() => SchemaParent, "id", { onDelete: "no action" });
  defaultActionRef = column.integer().references(() => SchemaParent);
  code = column.varchar(20).references(() => SchemaParent, "code");
}

/** The queue guide's Outbound table, with the partial unique index that makes enqueue idempotent. */
export class SchemaOutbound extends Model {
  static tablename = "tempest_schema_outbound";
  static naming = "snake_case";
  static indexes = [
    uniqueIndex<SchemaOutbound>("tempest_schema_outbound_idempotency", ["consumer", "idempotencyKey"]).where({
      idempotencyKey: { isNull: false },
    }),
    index<SchemaOutbound>("tempest_schema_outbound_due", ["status", "nextAttemptAt"]),
  ];

  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}

/** In the order createAll needs them (referenced tables first). */
export const schemaModels = [SchemaParent, SchemaChild, SchemaOutbound] as const;
