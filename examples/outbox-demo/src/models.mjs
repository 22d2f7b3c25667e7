import { column, Model, sql } from "tempest-db-js";

// The outbox guide's model, as written.
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

// What the "remote consumer" received: one row per delivery, with no unique key, so that a message
// delivered twice would show up as two rows when the demo counts.
export class Delivery extends Model {
  static tablename = "outbox_demo_deliveries";
  static naming = "snake_case";

  id = column.uuid().primaryKey().defaultRandom();
  messageId = column.uuid().notNull();
  worker = column.text().notNull();
  deliveredAt = column.datetime().notNull().default(sql.now());
}
