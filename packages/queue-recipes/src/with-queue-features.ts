import type { ModelClass } from "tempest-db-js";
import { withQueueIndexes } from "./ensure-queue-schema.js";
import type { QueueOptions } from "./queue-options.js";
import { queueTable } from "./queue-table.js";
import { withOptionalColumns } from "./verify-queue-schema.js";

/**
 * The model with every optional queue feature switched on: the columns `verifyQueueSchema` reports
 * off (claim token, last error and its time) declared as the recipes declare them, and the queue's
 * indexes. Give it to a migration tool as the model to reach (`@tempest-db-js/migrate` generates the
 * ALTERs and the index for a live table), and to the recipes, so they use the new columns.
 */
export function withQueueFeatures<M extends ModelClass<any>>(model: M, options: QueueOptions = {}): M {
  const q = queueTable(model, options);
  return withQueueIndexes(withOptionalColumns(model, q) as M, options);
}
