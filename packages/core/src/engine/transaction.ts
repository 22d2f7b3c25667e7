import type { CompiledQuery } from "../compiler/compiled-query.js";
import type { DriverConnection } from "../dialect/driver.js";
import { ValidationError } from "../errors.js";
import type { EngineCore } from "./engine-core.js";
import type { TransactionHandle, TransactionOptions } from "./executor.js";
import { BaseExecutor, finishedError, runSql } from "./executor.js";
import type { ExecutedQuery } from "./query-result.js";

let savepointCounter = 0;

/** A transaction bound to one connection. `transaction()` inside it opens a savepoint. */
export class Transaction extends BaseExecutor implements TransactionHandle {
  readonly connection: DriverConnection;
  readonly depth: number;
  #finished = false;

  constructor(core: EngineCore, connection: DriverConnection, depth: number) {
    super(core);
    this.connection = connection;
    this.depth = depth;
  }

  finish(): void {
    this.#finished = true;
  }

  async runCompiled<R>(compiled: CompiledQuery): Promise<ExecutedQuery<R>> {
    if (this.#finished) throw finishedError();
    return this.core.run<R>(this.connection, compiled, true);
  }

  async transaction<T>(fn: (tx: TransactionHandle) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (this.#finished) throw finishedError();
    if (options.isolation || options.readOnly || options.retryOnDeadlock) {
      throw new ValidationError(
        "A nested transaction is a savepoint: isolation, readOnly and retryOnDeadlock belong to the outermost transaction",
      );
    }
    if (!this.core.capabilities.savepoints)
      this.core.compiler.unsupported("savepoints (nested transactions)", "Run the work in the outer transaction.");
    const name = `tempest_sp_${++savepointCounter}`;
    const compiler = this.core.compiler;
    await runSql(this.core, this.connection, compiler.savepointSql(name), true);
    const nested = new Transaction(this.core, this.connection, this.depth + 1);
    try {
      const result = await fn(nested);
      nested.finish();
      await runSql(this.core, this.connection, compiler.releaseSavepointSql(name), true);
      return result;
    } catch (error) {
      nested.finish();
      await runSql(this.core, this.connection, compiler.rollbackToSavepointSql(name), true);
      await runSql(this.core, this.connection, compiler.releaseSavepointSql(name), true);
      throw error;
    }
  }
}
