import type { Index, ModelClass } from "tempest-db-js";
import { index } from "tempest-db-js";
import type { QueueOptions } from "../queue-options.js";
import { defaultFields } from "../queue-options.js";

/**
 * An optional index for the per-consumer metrics: `<table>_status_consumer` (status, consumer), so
 * `consumerDepth` groups from the index instead of reading each unsettled row. Every enqueue and
 * settlement also writes it: add it where the console is used on a deep queue
 * (`static indexes = [...queueIndexes(Outbound), ...metricsIndexes(Outbound)]`).
 */
export function metricsIndexes(model: ModelClass<any>, options: QueueOptions = {}): Index<any>[] {
  // Like queueIndexes: statics and options only, since this runs inside the model's own static field.
  const f = { ...defaultFields, ...options.fields };
  return [index<any>(`${model.tablename}_status_consumer`, [f.status, f.consumer])];
}
