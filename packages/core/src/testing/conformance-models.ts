import { column } from "../schema/column.js";
import { index, uniqueIndex } from "../schema/index.js";
import { Model } from "../schema/model.js";

/** The queue table of the guide, with the indexes a queue needs. */
export class ConformanceJob extends Model {
  static tablename = "tempest_conformance_jobs";
  static naming = "snake_case";
  static indexes = [
    uniqueIndex<ConformanceJob>("tempest_conformance_jobs_idempotency", ["consumer", "idempotencyKey"]).where({
      idempotencyKey: { isNull: false },
    }),
    index<ConformanceJob>("tempest_conformance_jobs_due", ["status", "nextAttemptAt"]),
  ];

  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}

/** One nullable column of every kind, to prove each travels both ways exactly. */
export class ConformanceValue extends Model {
  static tablename = "tempest_conformance_values";
  static naming = "snake_case";

  id = column.integer().primaryKey();
  uuidValue = column.uuid();
  textValue = column.text();
  varcharValue = column.varchar(40);
  integerValue = column.integer();
  bigintValue = column.bigint();
  realValue = column.real();
  numericValue = column.numeric(30, 10);
  booleanValue = column.boolean();
  datetimeValue = column.datetime();
  dateValue = column.date();
  jsonValue = column.json();
  enumValue = column.enum("red", "green");
  bytesValue = column.bytes();
  flag = column.boolean().notNull().default(false);
}

export const JOB_IDS = [
  "00000000-0000-4000-8000-000000000001",
  "00000000-0000-4000-8000-000000000002",
  "00000000-0000-4000-8000-000000000003",
  "00000000-0000-4000-8000-000000000004",
] as const;

/** Fixed instants, so that compiled parameters are the same on every run. */
export const T0 = new Date("2026-01-02T03:04:05.678Z");
export const T1 = new Date("2026-01-02T03:04:06.789Z");

/** The shop of the query cases: customers (one referred by another), and their orders. */
export class ConformanceCustomer extends Model {
  static tablename = "tempest_conformance_customers";
  static naming = "snake_case";

  id = column.integer().primaryKey();
  name = column.text().notNull();
  referredBy = column.integer();
  createdAt = column.datetime().notNull();
}

export class ConformanceOrder extends Model {
  static tablename = "tempest_conformance_orders";
  static naming = "snake_case";

  id = column.integer().primaryKey();
  /** Null for a guest order. */
  customerId = column.integer();
  status = column.enum("open", "paid", "shipped").notNull();
  /** In cents. */
  total = column.integer().notNull();
  amount = column.numeric(12, 2).notNull();
  createdAt = column.datetime().notNull();
  shippedAt = column.datetime();
}

/** Tickets whose state is declared out of alphabetical order, for the sort rules of projections. */
export class ConformanceTicket extends Model {
  static tablename = "tempest_conformance_tickets";
  static naming = "snake_case";

  id = column.integer().primaryKey();
  state = column.enum("queued", "failed", "sent", "Sending");
  doneAt = column.datetime();
}
