import { column, Model } from "tempest-db-js";

/** The queue table: the outbox guide's model, field for field. */
export function jobModel(tablename: string) {
  return class Job extends Model {
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

/**
 * One row per claimed job, inserted in the transaction that made the claim: it commits exactly
 * when the claim does. `claimedAt` is the `updatedAt` the claim wrote (the value the lease is
 * measured from), `leaseUntil` is `claimedAt + leaseSeconds`.
 */
export function claimModel(tablename: string) {
  return class Claim extends Model {
    static tablename = tablename;
    static naming = "snake_case";

    id = column.uuid().primaryKey();
    jobId = column.uuid().notNull();
    attempt = column.integer().notNull();
    worker = column.text().notNull();
    batchId = column.uuid().notNull();
    batchSize = column.integer().notNull();
    claimedAt = column.datetime().notNull();
    leaseUntil = column.datetime().notNull();
  };
}

/**
 * One row per settlement a worker attempted (markSent / requeue / markFailed), inserted in the
 * transaction of the settlement. `applied` says whether the fenced update changed the row.
 */
export function settlementModel(tablename: string) {
  return class Settlement extends Model {
    static tablename = tablename;
    static naming = "snake_case";

    id = column.uuid().primaryKey();
    jobId = column.uuid().notNull();
    attempt = column.integer().notNull();
    worker = column.text().notNull();
    outcome = column.enum("sent", "requeued", "failed").notNull();
    applied = column.boolean().notNull();
    settledAt = column.datetime().notNull();
  };
}

/** One row per reclaimExpired call that moved rows, in its transaction. */
export function reclaimModel(tablename: string) {
  return class Reclaim extends Model {
    static tablename = tablename;
    static naming = "snake_case";

    id = column.uuid().primaryKey();
    worker = column.text().notNull();
    rowCount = column.integer().notNull();
    reclaimedAt = column.datetime().notNull();
  };
}

/** Something a worker saw that must not happen (a fence that disagreed with the rows, an error it could not retry). */
export function anomalyModel(tablename: string) {
  return class Anomaly extends Model {
    static tablename = tablename;
    static naming = "snake_case";

    id = column.uuid().primaryKey();
    worker = column.text().notNull();
    kind = column.text().notNull();
    detail = column.text().notNull();
  };
}

export function chaosModels(prefix: string) {
  return {
    Job: jobModel(`${prefix}_jobs`),
    Claim: claimModel(`${prefix}_claims`),
    Settlement: settlementModel(`${prefix}_settlements`),
    Reclaim: reclaimModel(`${prefix}_reclaims`),
    Anomaly: anomalyModel(`${prefix}_anomalies`),
  };
}

export type ChaosModels = ReturnType<typeof chaosModels>;
