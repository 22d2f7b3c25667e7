import type { QueueTable } from "./queue-table.js";

/** Distinct statements kept per queue table (sizes × consumer lists a program uses: a handful). */
const LIMIT = 64;

const cache = new WeakMap<QueueTable, Map<string, unknown>>();

/**
 * A statement (or part of one) that depends only on the queue table and `key` (a claim for a size and consumers: no
 * per-call value), built once. Builders are immutable, and the engine compiles a statement object
 * it has seen before from its cache, so a drain's claims skip building and compiling, and the
 * driver finds the same SQL string (its hash already computed) batch after batch.
 */
export function cachedStatement<S>(q: QueueTable, key: string, make: () => S): S {
  let statements = cache.get(q);
  if (!statements) cache.set(q, (statements = new Map()));
  let statement = statements.get(key) as S | undefined;
  if (statement === undefined) {
    statement = make();
    if (statements.size < LIMIT) statements.set(key, statement);
  }
  return statement;
}
