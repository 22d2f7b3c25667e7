import { column, Model } from "tempest-db-js";

/** What the lease chaos supervisor hands a worker (JSON in LEASE_WORKER). */
export interface LeaseWorkerConfig {
  readonly url: string;
  readonly dialectPackage: string;
  readonly table: string;
  readonly journal: string;
  readonly lanes: number;
  readonly batchSize: number;
  readonly leaseSeconds: number;
  /** Each delivery takes a uniform time in [min, max]; max is longer than the lease. */
  readonly minDeliveryMs: number;
  readonly maxDeliveryMs: number;
}

/** The guide's model with the optional claim token: attempts counts failed deliveries only. */
export function leaseJobModel(table: string) {
  return class LeaseJob extends Model {
    static tablename = table;
    static naming = "snake_case";
    id = column.uuid().primaryKey();
    consumer = column.text().notNull();
    idempotencyKey = column.text();
    status = column.enum("queued", "sending", "sent", "failed").notNull();
    attempts = column.integer().notNull().default(0);
    nextAttemptAt = column.datetime().notNull();
    updatedAt = column.datetime();
    claimToken = column.integer().notNull().default(0);
  };
}
