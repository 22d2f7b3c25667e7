import { column, index, Model, sql, uniqueIndex } from "tempest-db-js";

/** The guide's model, with its idempotency index and an index that lets the claim lock only what it takes. */
export class Outbound extends Model {
  static tablename = "dm_outbound_messages";
  static naming = "snake_case";
  static indexes = [
    uniqueIndex<Outbound>("dm_outbound_idempotency", ["consumer", "idempotencyKey"]).where({ idempotencyKey: { isNull: false } }),
    index<Outbound>("dm_outbound_claim", ["status", "nextAttemptAt"]),
  ];

  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}

/** One column of every kind. */
export class Everything extends Model {
  static tablename = "dm_everything";
  static naming = "snake_case";

  id = column.uuid().primaryKey();
  label = column.text();
  code = column.varchar(20);
  small = column.integer();
  big = column.bigint();
  ratio = column.real();
  amount = column.numeric(30, 10);
  anyNumber = column.numeric();
  flag = column.boolean();
  at = column.datetime();
  day = column.date();
  doc = column.json();
  state = column.enum("on", "off", "it's");
  blob = column.bytes();
}

export class Parent extends Model {
  static tablename = "dm_parent";
  id = column.integer().primaryKey();
  name = column.text().notNull();
}

export class Child extends Model {
  static tablename = "dm_child";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  parentId = column
    .integer()
    .notNull()
    .references(() => Parent, "id");
}

/** Two rows that two transactions lock in opposite orders. */
export class Account extends Model {
  static tablename = "dm_account";
  id = column.integer().primaryKey();
  balance = column.integer().notNull();
}

/** Every column has a default: an insert of `{}` has no column list. */
export class Defaults extends Model {
  static tablename = "dm_defaults";
  static naming = "snake_case";
  seq = column.integer().notNull().default(7);
  note = column.text().default("a\\b 'quoted'");
  createdAt = column.datetime().notNull().default(sql.now());
}
