import { column, Model, sql, uniqueIndex } from "tempest-db-js";

/** The guide's model, with its partial unique index declared on the model. */
export class Outbound extends Model {
  static tablename = "outbound_messages";
  static naming = "snake_case";
  static indexes = [
    uniqueIndex<Outbound>("outbound_idempotency_unique", ["consumer", "idempotencyKey"]).where({ idempotencyKey: { isNull: false } }),
  ];

  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}

/** One column of every kind, to prove each one round-trips. */
export class Sample extends Model {
  static tablename = "samples";
  static naming = "snake_case";

  id = column.uuid().primaryKey().defaultRandom();
  label = column.text();
  code = column.varchar(8);
  count = column.integer();
  big = column.bigint();
  ratio = column.real();
  amount = column.numeric(30, 3);
  flag = column.boolean();
  at = column.datetime();
  day = column.date();
  doc = column.json();
  kind = column.enum("small", "large");
  blob = column.bytes();
  active = column.boolean().notNull().default(true);
  createdAt = column.datetime().notNull().default(sql.now());
}

export class Parent extends Model {
  static tablename = "parents";
  id = column.integer().primaryKey();
}

export class Child extends Model {
  static tablename = "children";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  parentId = column
    .integer()
    .notNull()
    .references(() => Parent, "id");
}

export class Counter extends Model {
  static tablename = "counters";
  id = column.integer().primaryKey();
  value = column.integer().notNull();
}
