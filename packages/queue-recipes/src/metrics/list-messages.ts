import type { Executor, InferModel, ModelClass } from "tempest-db-js";
import { and, op, or, select, ValidationError } from "tempest-db-js";
import type { QueueOptions, QueueStatuses } from "../queue-options.js";
import { queueTable } from "../queue-table.js";

export interface ListMessagesOptions extends QueueOptions {
  /** The status to list, by role (default "failed"). */
  readonly status?: keyof QueueStatuses;
  /** Only this consumer's messages. */
  readonly consumer?: string;
  /** At most this many rows, the most recently updated first (default 50, at most 1000). */
  readonly limit?: number;
  /** The next page: the `updatedAt` and `id` of the last row of the page before. */
  readonly after?: { readonly updatedAt: Date; readonly id: unknown };
}

/**
 * Messages of one status, most recently updated first, a page at a time (keyset: no OFFSET to skip
 * over). A range of the `<table>_lease` index (status, updatedAt) read backwards. Every filter is a
 * bound value: a consumer name from a request is compared, never spliced.
 */
export async function listMessages<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  options: ListMessagesOptions = {},
): Promise<InferModel<M>[]> {
  const q = queueTable(model, options);
  const limit = options.limit ?? 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new ValidationError("listMessages: limit must be an integer from 1 to 1000");
  const role = options.status ?? "failed";
  if (!Object.hasOwn(q.s, role)) throw new ValidationError(`listMessages: status must be one of ${Object.keys(q.s).join(", ")}`);
  if (options.consumer !== undefined && typeof options.consumer !== "string")
    throw new ValidationError("listMessages: consumer must be a string");
  const { status, consumer, updatedAt, id } = q.f;
  const conditions: unknown[] = [{ [status]: q.s[role] }];
  if (options.consumer !== undefined) conditions.push({ [consumer]: options.consumer });
  if (options.after !== undefined) {
    const { updatedAt: at, id: lastId } = options.after;
    if (!(at instanceof Date) || Number.isNaN(at.getTime()))
      throw new ValidationError("listMessages: after.updatedAt must be a valid Date");
    conditions.push(or({ [updatedAt]: op.lt(at) }, and({ [updatedAt]: at }, { [id]: op.lt(lastId) })));
  }
  const statement = select(q.model)
    .where(and(...(conditions as [any, ...any[]])))
    .orderBy(updatedAt as any, "desc")
    .orderBy(id as any, "desc")
    .limit(limit);
  return (await db.execute(statement).all()) as InferModel<M>[];
}

/** One message by its id, or null. */
export async function showMessage<M extends ModelClass<any>>(
  db: Executor,
  model: M,
  id: unknown,
  options: QueueOptions = {},
): Promise<InferModel<M> | null> {
  const q = queueTable(model, options);
  return (await db.execute(select(q.model).where({ [q.f.id]: id } as any)).oneOrNull()) as InferModel<M> | null;
}
