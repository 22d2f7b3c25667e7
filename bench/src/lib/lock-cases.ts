import { withQueueIndexes } from "@tempest-db-js/queue-recipes";
import type { ModelClass } from "tempest-db-js";
import { column, index, Model } from "tempest-db-js";

/** What one flagged change adds to the queue table (each case flips one of these). */
export interface LockChange {
  readonly consumerIndex?: boolean;
  readonly tenantForeignKey?: boolean;
  readonly updatedAtNotNull?: boolean;
  readonly attemptsBigint?: boolean;
  readonly volatileDefault?: boolean;
  readonly uniqueRef?: boolean;
}

export interface LockCase {
  readonly name: string;
  readonly change: LockChange;
}

/** The operations the lock-safety lint flags on PostgreSQL, each as a model change of the queue table. */
export const LOCK_CASES: readonly LockCase[] = [
  { name: "CREATE INDEX on consumer", change: { consumerIndex: true } },
  { name: "foreign key tenant_id → tenants", change: { tenantForeignKey: true } },
  { name: "SET NOT NULL on updated_at", change: { updatedAtNotNull: true } },
  { name: "attempts integer → bigint (rewrite)", change: { attemptsBigint: true } },
  { name: "ADD COLUMN with a volatile default", change: { volatileDefault: true } },
  { name: "UNIQUE on ref", change: { uniqueRef: true } },
];

export const TENANTS_TABLE = "bench_ml_tenants";

export class Tenant extends Model {
  static tablename = TENANTS_TABLE;
  id = column.integer().primaryKey();
}

/**
 * The guide's queue model with two extra columns the cases use (`tenant_id`, `ref`), before or after
 * one change. Every row the bench loads fills them, so each constraint holds on existing data.
 */
export function lockCaseModel(table: string, change: LockChange = {}): ModelClass {
  class Job extends Model {
    static tablename = table;
    static naming = "snake_case";
    static indexes = change.consumerIndex ? [index("bench_ml_consumer", ["consumer"])] : [];

    id = column.uuid().primaryKey();
    consumer = column.text().notNull();
    idempotencyKey = column.text();
    status = column.enum("queued", "sending", "sent", "failed").notNull();
    attempts = change.attemptsBigint ? column.bigint().notNull().default(0n) : column.integer().notNull().default(0);
    nextAttemptAt = column.datetime().notNull();
    updatedAt = change.updatedAtNotNull ? column.datetime().notNull() : column.datetime();
    tenantId = change.tenantForeignKey ? column.integer().references(() => Tenant) : column.integer();
    ref = change.uniqueRef ? column.text().unique() : column.text();
    token = change.volatileDefault ? column.uuid().defaultRandom() : undefined;
  }
  return withQueueIndexes(Job as unknown as ModelClass) as ModelClass;
}
