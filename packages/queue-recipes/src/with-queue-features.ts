import type { column, ModelClass } from "tempest-db-js";
import { withQueueIndexes } from "./ensure-queue-schema.js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";
import { withOptionalColumns } from "./verify-queue-schema.js";

/**
 * The model with every optional queue feature switched on: the columns `verifyQueueSchema` reports
 * off (claim token, last error and its time, the dead-letter columns) declared as the recipes declare
 * them, and the queue's indexes. Give it to a migration tool as the model to reach
 * (`@tempest-db-js/migrate` generates the ALTERs and the index for a live table), and to the recipes,
 * so they use the new columns.
 */
export function withQueueFeatures<M extends ModelClass<any>>(model: M, options: QueueOptions = {}): WithQueueFeatures<M> {
  const q = queueTable(model, options);
  return withQueueIndexes(withOptionalColumns(model, q) as M, options) as WithQueueFeatures<M>;
}

type CountColumn = ReturnType<ReturnType<ReturnType<typeof column.integer>["notNull"]>["default"]>;

/** The optional columns' types, as `verify-queue-schema.ts` declares them. */
interface FeatureColumns {
  claimToken: CountColumn;
  lastError: ReturnType<typeof column.text>;
  lastErrorAt: ReturnType<typeof column.datetime>;
  priority: CountColumn;
  reclaims: CountColumn;
  deadReason: ReturnType<typeof column.text>;
  attemptHistory: ReturnType<typeof column.json>;
}

/**
 * The type of `withQueueFeatures(M)`: M's class, whose rows also have the optional columns it did not
 * declare (under the default field names), so that `select(Full)` reads `deadReason` typed.
 */
export type WithQueueFeatures<M extends ModelClass<any>> = M & (new () => InstanceType<M> & Omit<FeatureColumns, keyof InstanceType<M>>);
