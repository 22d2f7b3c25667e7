import type { InferModel, ModelClass } from "tempest-db-js";
import { ValidationError } from "tempest-db-js";
import type { MessageFilter } from "./message-filter.js";
import type { BatchOptions } from "./operator-batches.js";
import type { QueueOptions } from "./queue-options.js";

/** The id type of a model's messages (for the ids an operator's verb returns). */
export type MessageId<M extends ModelClass<any>> = InferModel<M> extends { id: infer I } ? I : unknown;

/** Options every operator's verb takes: which messages, how many per batch, and the queue's mapping. */
export interface VerbOptions extends MessageFilter, BatchOptions, QueueOptions {}

const COMMON_KEYS = [
  "ids",
  "consumer",
  "errorContains",
  "since",
  "until",
  "batchSize",
  "limit",
  "maxIds",
  "fields",
  "statuses",
  "channel",
  "onSent",
];

/**
 * The filter part of a verb's options, after refusing any key the verb does not know: options are
 * often built from a request body, and a misspelt filter field would otherwise widen the verb to
 * every message.
 */
export function filterOf(options: VerbOptions, verb: string, own: readonly string[]): MessageFilter {
  if (typeof options !== "object" || options === null || Array.isArray(options))
    throw new ValidationError(`${verb}: options must be an object`);
  const known = new Set([...COMMON_KEYS, ...own]);
  for (const key of Object.keys(options)) {
    if (!known.has(key)) throw new ValidationError(`${verb}: unknown option "${key.slice(0, 40)}"`);
  }
  const { ids, consumer, errorContains, since, until } = options;
  const filter: Record<string, unknown> = { ids, consumer, errorContains, since, until };
  for (const key of Object.keys(filter)) if (filter[key] === undefined) delete filter[key];
  return filter as MessageFilter;
}

/** A verb that must not sweep the whole queue by accident asks for at least one filter field. */
export function requireFilter(filter: MessageFilter, verb: string): void {
  if (Object.keys(filter).length === 0)
    throw new ValidationError(
      `${verb}: name the messages (ids, consumer, errorContains, since or until); an empty filter would take every one`,
    );
}

/** When a verb makes messages due: `at` (a Date) or `delaySeconds` from now on the database clock; default now. */
export interface DueOptions {
  readonly at?: Date;
  readonly delaySeconds?: number;
}
