/**
 * On a single-connection driver (SQLite) a statement on the engine inside that engine's own
 * transaction callback would wait for the connection the transaction holds: a silent hang. This
 * finds it without AsyncLocalStorage, whose promise hook (Node 20) taxes every promise of the process
 * while a callback runs — about a quarter of raw better-sqlite3's own time per awaited statement.
 *
 * Each guarded callback is awaited by a function whose name is unique to it. Only a statement that
 * would have to wait for the connection while such a callback is open looks for one of its engine's
 * names in its stack trace, where V8 links the async functions that await each other (and `.then`
 * chains and `Promise.all` an async function awaits). A callback that reaches the engine through
 * something V8 cannot link (an event emitter, a timer) is not recognised: it waits, and the
 * transaction's idle timeout ends it.
 */

/** The names of the callbacks open per engine core. */
const open = new WeakMap<object, Set<string>>();
let sequence = 0;

/** Runs `fn` as a transaction callback of `owner`, marked until it settles. */
export function runGuarded<T>(owner: object, fn: () => Promise<T>): Promise<T> {
  const name = `tempestTransactionCallback${++sequence}`;
  let names = open.get(owner);
  if (names === undefined) open.set(owner, (names = new Set()));
  names.add(name);
  const marked = {
    async [name](run: () => Promise<T>): Promise<T> {
      return await run();
    },
  }[name] as (run: () => Promise<T>) => Promise<T>;
  const outcome = marked(fn);
  const release = () => void names.delete(name);
  outcome.then(release, release);
  return outcome;
}

/** Whether the code running now was called, directly or through awaits, by an open callback of `owner`. */
export function insideGuarded(owner: object): boolean {
  const names = open.get(owner);
  if (names === undefined || names.size === 0) return false;
  for (const site of callSites()) {
    const name = site.getFunctionName();
    if (name !== null && names.has(name)) return true;
  }
  return false;
}

function callSites(): NodeJS.CallSite[] {
  const { stackTraceLimit, prepareStackTrace } = Error;
  Error.stackTraceLimit = Number.POSITIVE_INFINITY;
  Error.prepareStackTrace = (_error, sites) => sites;
  try {
    const holder: { stack?: NodeJS.CallSite[] } = {};
    Error.captureStackTrace(holder);
    return holder.stack ?? [];
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
    Error.prepareStackTrace = prepareStackTrace;
  }
}
