import type { StatementNode } from "../ast/statement-node.js";
import type { CompiledQuery } from "../compiler/compiled-query.js";
import { exhaustive } from "../compiler/compiler-base.js";
import type { DriverConnection, DriverRowStream } from "../dialect/driver.js";
import type { QueryError } from "../errors.js";
import { StreamOpenError, ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import type { EngineCore } from "./engine-core.js";

export interface StreamOptions {
  /**
   * Rows read per round trip, and so held at once (default 500). Larger batches cost fewer round
   * trips; smaller ones less memory per stream.
   */
  readonly batchSize?: number;
}

export const DEFAULT_STREAM_BATCH = 500;
const MAX_STREAM_BATCH = 100_000;

/** The batch size asked for, checked at the call site. */
export function streamBatchSize(options: StreamOptions | undefined): number {
  const size = options?.batchSize ?? DEFAULT_STREAM_BATCH;
  if (!Number.isSafeInteger(size) || size < 1 || size > MAX_STREAM_BATCH) {
    throw new ValidationError(`batchSize must be an integer from 1 to ${MAX_STREAM_BATCH}, got ${describe(size)}`);
  }
  return size;
}

/** Only queries can be streamed: a select, a set operation, or raw SQL (which must be one). */
export function refuseUnstreamable(node: StatementNode): void {
  switch (node.kind) {
    case "select":
    case "compound":
    case "rawStatement":
      return;
    case "insert":
    case "update":
    case "delete":
    case "createTable":
    case "createIndex":
    case "dropTable":
    case "addColumn":
    case "describeTable":
    case "relationSelect":
      throw new ValidationError(`stream() reads the rows of a select; a ${node.kind} statement is run with execute()`);
    default:
      exhaustive(node);
  }
}

/** What the executor that opened a stream hands to it: batches of decoded rows, and the way to end it. */
export interface OpenedStream {
  next(): Promise<readonly unknown[] | undefined>;
  /** Set when the stream's owner ended it (its transaction finished): rows still held are not handed out. */
  readonly refused: Error | undefined;
  /** Frees the stream's resources; `failure` is the error that ended the iteration, if one did. */
  close(failure: unknown): Promise<void>;
}

/** The stream an iterator opened, until its loop ends: what to close should the iterator be dropped instead. */
interface Holder {
  opened: OpenedStream | undefined;
}

const noop = (): void => {};

/**
 * Closes the stream of an iterator dropped mid-read (no break, return() or throw: `await it.next()`
 * and then `it` goes out of scope), once the garbage collector has taken the iterator: its
 * connection, cursor or busy SQLite statement is freed then instead of never. An iterator a loop is
 * still using (its body awaiting, or a batch being read) is reachable from that loop, so it is
 * never taken. Nobody is left to hear a failure to close; the close still releases the connection.
 */
const abandoned = new FinalizationRegistry<Holder>((holder) => {
  const opened = holder.opened;
  holder.opened = undefined;
  opened?.close(undefined).catch(noop);
});

/**
 * The rows of one select, read a batch at a time: `for await (const row of engine.stream(query))`.
 * Nothing runs until the iteration starts. A batch is read only when the loop has taken every row
 * of the one before (backpressure), and leaving the loop early (break, return, throw) ends the
 * statement and frees its connection before the loop exits. Read once. An iterator dropped without
 * any of those is closed once the garbage collector takes it (see `abandoned`).
 */
export class RowStream<R> implements AsyncIterable<R> {
  readonly #open: () => Promise<OpenedStream>;
  #used = false;

  constructor(open: () => Promise<OpenedStream>) {
    this.#open = open;
  }

  [Symbol.asyncIterator](): AsyncGenerator<R, void, undefined> {
    return this.#start<R>(true);
  }

  /** Every row, batch by batch: for a consumer that works on a batch at a time (bulk writes, file chunks). */
  batches(): AsyncGenerator<R[], void, undefined> {
    return this.#start<R[]>(false);
  }

  #start<T>(rowAtATime: boolean): AsyncGenerator<T, void, undefined> {
    if (this.#used) throw new ValidationError("A stream is read once: call stream() again to read the rows again");
    this.#used = true;
    const holder: Holder = { opened: undefined };
    const iterator = this.#read(holder, rowAtATime) as AsyncGenerator<T, void, undefined>;
    abandoned.register(iterator, holder, holder);
    return iterator;
  }

  async *#read(holder: Holder, rowAtATime: boolean): AsyncGenerator<unknown, void, undefined> {
    const opened = await this.#open();
    holder.opened = opened;
    let failure: unknown;
    try {
      for (;;) {
        const batch = await opened.next();
        if (batch === undefined) return;
        if (!rowAtATime) {
          if (opened.refused !== undefined) throw opened.refused;
          yield batch;
          continue;
        }
        for (let i = 0; i < batch.length; i++) {
          if (opened.refused !== undefined) throw opened.refused;
          yield batch[i];
        }
      }
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      abandoned.unregister(holder);
      holder.opened = undefined;
      await opened.close(failure);
    }
  }
}

/**
 * One driver stream seen by core: errors typed like statement errors (SQL, no bound values), rows
 * decoded by the same decoder as execute(), and one query event when it ends, with the rows read.
 */
export class StreamCursor {
  readonly #core: EngineCore;
  readonly #compiled: CompiledQuery;
  readonly #stream: DriverRowStream;
  readonly #inTransaction: boolean;
  readonly #started: number;
  #rows = 0;
  #error: QueryError | undefined;

  private constructor(core: EngineCore, compiled: CompiledQuery, stream: DriverRowStream, inTransaction: boolean) {
    this.#core = core;
    this.#compiled = compiled;
    this.#stream = stream;
    this.#inTransaction = inTransaction;
    this.#started = performance.now();
  }

  /** Opens the driver's stream on `connection`; UnsupportedFeatureError when its driver cannot stream. */
  static open(core: EngineCore, connection: DriverConnection, compiled: CompiledQuery, batchSize: number, inTransaction: boolean) {
    if (typeof connection.stream !== "function") {
      core.compiler.unsupported(
        "streaming (stream())",
        "Read the rows in pages instead: a where() on the last key read, with orderBy() and limit().",
      );
    }
    let stream: DriverRowStream;
    try {
      stream = connection.stream(core.driverQuery(compiled), { batchSize, inTransaction });
    } catch (error) {
      throw core.typedError(error, compiled);
    }
    return new StreamCursor(core, compiled, stream, inTransaction);
  }

  get sql(): string {
    return this.#compiled.sql;
  }

  next(): Promise<unknown[] | undefined> {
    let pending: Promise<readonly unknown[] | undefined>;
    try {
      pending = this.#stream.next();
    } catch (error) {
      return Promise.reject(this.#typed(error));
    }
    return pending.then(
      (batch) => {
        if (batch === undefined) return undefined;
        this.#rows += batch.length;
        return this.#core.decodeRows(batch, this.#compiled);
      },
      (error: unknown) => {
        throw this.#typed(error);
      },
    );
  }

  /** Ends the driver's stream; `lost` when the driver closed the connection to do so. */
  async close(): Promise<"closed" | "lost"> {
    try {
      return await this.#stream.close();
    } catch (error) {
      throw this.#typed(error);
    } finally {
      const core = this.#core;
      if (core.settings.onQuery) core.emit(this.#compiled, this.#started, this.#rows, this.#error, this.#inTransaction);
    }
  }

  #typed(error: unknown): QueryError | StreamOpenError {
    const typed = this.#core.typedError(error, this.#compiled);
    if (!StreamOpenError.isInstance(typed)) this.#error ??= typed;
    return typed;
  }
}
