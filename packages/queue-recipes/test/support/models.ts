import type { ModelClass } from "tempest-db-js";
import { column, Model } from "tempest-db-js";

/** The guide's Outbound model, field for field, on a table of the test's choosing. */
export function outboundModel(tablename: string) {
  return class Outbound extends Model {
    static tablename = tablename;
    static naming = "snake_case";

    id = column.uuid().primaryKey();
    consumer = column.text().notNull();
    idempotencyKey = column.text();
    status = column.enum("queued", "sending", "sent", "failed").notNull();
    attempts = column.integer().notNull().default(0);
    nextAttemptAt = column.datetime().notNull();
    updatedAt = column.datetime();
  };
}

export type OutboundModel = ReturnType<typeof outboundModel>;

/** The guide's model plus the optional columns: a claim token and the last error's text and time. */
export function tokenModel(tablename: string) {
  return class TokenOutbound extends outboundModel(tablename) {
    claimToken = column.integer().notNull().default(0);
    lastError = column.text();
    lastErrorAt = column.datetime();
  };
}

export type TokenModel = ReturnType<typeof tokenModel>;

/** The guide's model with a priority (lowest claimed first). */
export function priorityModel(tablename: string) {
  return class PriorityOutbound extends outboundModel(tablename) {
    priority = column.integer().notNull().default(0);
  };
}

/** One row per delivery, deliberately without a unique key: duplicates must be countable. */
export function deliveryModel(tablename: string) {
  return class Delivery extends Model {
    static tablename = tablename;
    static naming = "snake_case";

    id = column.uuid().primaryKey().defaultRandom();
    messageId = column.uuid().notNull();
    worker = column.text().notNull();
  };
}

export type AnyModel = ModelClass<any>;

/** The deliveries table of the overrun tests (fixtures/models.mjs has the same in JavaScript). */
export function overrunDeliveryModel(tablename: string) {
  return class OverrunDelivery extends Model {
    static tablename = tablename;
    static naming = "snake_case";

    id = column.uuid().primaryKey().defaultRandom();
    messageId = column.uuid().notNull();
    kind = column.text().notNull();
    token = column.integer().notNull();
    worker = column.text().notNull();
    startedAt = column.datetime().notNull();
    concurrent = column.integer().notNull().default(0);
    live = column.boolean().notNull();
  };
}

/** The token model plus the dead-letter columns: reclaims counted, why a message is dead, its attempts. */
export function deadLetterModel(tablename: string) {
  return class DeadLetterOutbound extends tokenModel(tablename) {
    reclaims = column.integer().notNull().default(0);
    deadReason = column.text();
    attemptHistory = column.json();
  };
}

export type DeadLetterModel = ReturnType<typeof deadLetterModel>;
