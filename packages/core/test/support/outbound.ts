import { column, Model, uniqueIndex } from "../../src/index.js";

/** The guide's model, verbatim (no `override` on the statics). */
export class Outbound extends Model {
  static tablename = "outbound_messages";
  static naming = "snake_case";

  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}

/** The guide's model plus the partial unique index the idempotency section creates. */
export class IndexedOutbound extends Model {
  static tablename = "outbound_messages";
  static naming = "snake_case";
  static indexes = [
    uniqueIndex<IndexedOutbound>("outbound_idempotency_unique", ["consumer", "idempotencyKey"]).where({
      idempotencyKey: { isNull: false },
    }),
  ];

  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}
