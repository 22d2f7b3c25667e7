import type { QueueTable } from "./queue-table.js";

/** Distinct statements kept per queue table (sizes × consumer lists a program uses: a handful). */
const LIMIT = 64;

type Cache = WeakMap<QueueTable, Map<string, unknown>>;

const cache: Cache = new WeakMap();
/** Prepared statements belong to one engine: a cache per `db.engineKey`. */
const perEngine = new WeakMap<object, Cache>();

/**
 * A statement (or part of one) that depends only on the queue table and `key` (a claim for a size and consumers: no
 * per-call value), built once. Builders are immutable, and the engine compiles a statement object
 * it has seen before from its cache, so a drain's claims skip building and compiling, and the
 * driver finds the same SQL string (its hash already computed) batch after batch.
 */
export function cachedStatement<S>(q: QueueTable, key: string, make: () => S): S {
  return lookup(cache, q, key, make);
}

/**
 * A prepared statement (see `prepare`) of one engine for the queue table and `key`: built and
 * compiled once, after which a call only binds its values.
 */
export function cachedPrepared<S>(engineKey: object, q: QueueTable, key: string, make: () => S): S {
  let statements = perEngine.get(engineKey);
  if (!statements) perEngine.set(engineKey, (statements = new WeakMap()));
  return lookup(statements, q, key, make);
}

function lookup<S>(within: Cache, q: QueueTable, key: string, make: () => S): S {
  let statements = within.get(q);
  if (!statements) within.set(q, (statements = new Map()));
  let statement = statements.get(key) as S | undefined;
  if (statement === undefined) {
    statement = make();
    if (statements.size < LIMIT) statements.set(key, statement);
  }
  return statement;
}
