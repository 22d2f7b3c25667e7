import type { Expression } from "../ast/expression.js";
import { isExpression } from "../ast/expression.js";
import type { RelationPlan } from "../ast/relation-node.js";
import type { SchemaChange, SchemaStep } from "../ast/schema-change-node.js";
import type { SelectNode, StatementNode } from "../ast/statement-node.js";
import { rawStatementNode } from "../ast/statement-node.js";
import type { Executable } from "../builder/executable.js";
import { isExecutable } from "../builder/executable.js";
import { SelectBuilder } from "../builder/select-builder.js";
import type { CompiledQuery } from "../compiler/compiled-query.js";
import type { BeginOptions } from "../compiler/sql-compiler.js";
import type { DialectCapabilities } from "../dialect/capabilities.js";
import type { DriverConnection } from "../dialect/driver.js";
import { TransactionFinishedError, ValidationError } from "../errors.js";
import type { EngineCore } from "./engine-core.js";
import type { ExecutedQuery } from "./query-result.js";
import { QueryResult } from "./query-result.js";
import { refusePlainOperators } from "./refuse-plain-operators.js";
import { loadRelations, refusePlanOperators } from "./relation-loader.js";
import type { OpenedStream, RowStream, StreamOptions } from "./row-stream.js";
import { RowStream as Rows, refuseUnstreamable, streamBatchSize } from "./row-stream.js";

export interface TransactionOptions extends BeginOptions {
  /** Run the whole callback again, up to this many times, on a deadlock, serialization failure or lock-wait timeout. */
  readonly retryOnDeadlock?: number;
}

/** Something statements can be executed on: the engine, a session or a transaction. */
export interface Executor {
  execute<R>(query: Executable<R>): QueryResult<R>;
  execute(query: Expression<any>): QueryResult<Record<string, unknown>>;
  /** The rows of a select, read a batch at a time with bounded memory: `for await (const row of db.stream(q))`. */
  stream<R>(query: Executable<R>, options?: StreamOptions): RowStream<R>;
  stream(query: Expression<any>, options?: StreamOptions): RowStream<Record<string, unknown>>;
  transaction<T>(fn: (tx: TransactionHandle) => Promise<T>, options?: TransactionOptions): Promise<T>;
  compile(query: Executable<unknown> | Expression<any>): CompiledQuery;
  /** The statements a schema change compiles to on this database, once the engine knows the server (see `schemaSteps`). */
  schemaSteps(change: SchemaChange): Promise<readonly SchemaStep[]>;
  notify(channel: string, payload: string): Promise<void>;
  readonly capabilities: DialectCapabilities;
  readonly dialectName: string;
  /**
   * One object per engine, the same for the engine and every transaction and session opened on it:
   * a key for caches kept per database (a `WeakMap`), which holds nothing of the engine's own.
   */
  readonly engineKey: object;
}

/** The transaction type seen by callbacks (declared here to avoid an import cycle). */
export interface TransactionHandle extends Executor {
  readonly depth: number;
}

export function toNode(query: Executable<unknown> | Expression<any>): StatementNode {
  // Builders first: most statements are builders, told by their brand without a look at the prototype.
  if (isExecutable(query)) return query.toNode();
  if (isExpression(query)) return rawStatementNode(query.node);
  throw new ValidationError("execute() takes a query builder or sql.raw / sql.expr");
}

export abstract class BaseExecutor implements Executor {
  protected readonly core: EngineCore;

  constructor(core: EngineCore) {
    this.core = core;
  }

  get capabilities(): DialectCapabilities {
    return this.core.capabilities;
  }

  get dialectName(): string {
    return this.core.dialect.name;
  }

  get engineKey(): object {
    return this.core.key;
  }

  /** No URL password, pool or connection object (which hold credentials) in JSON.stringify. */
  toJSON(): object {
    return { kind: this.constructor.name, ...this.core.describe() };
  }

  /** Nor in util.inspect / console.log. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    const { dialect, url } = this.core.describe();
    return `${this.constructor.name} { dialect: ${JSON.stringify(dialect)}, url: ${JSON.stringify(url)} }`;
  }

  /** Compiles without running anything and without a connection. */
  compile(query: Executable<unknown> | Expression<any>): CompiledQuery {
    const node = toNode(query);
    if (this.core.settings.helpersOnly) refusePlainOperators(node);
    return this.core.compiler.compile(node);
  }

  async schemaSteps(change: SchemaChange): Promise<readonly SchemaStep[]> {
    await this.core.ready();
    return this.core.compiler.schemaSteps(change);
  }

  execute<R>(query: Executable<R>): QueryResult<R>;
  execute(query: Expression<any>): QueryResult<Record<string, unknown>>;
  execute(query: Executable<unknown> | Expression<any>): QueryResult<any> {
    // Built (and validated) now, so bad input throws at the call site, before anything runs.
    const node = toNode(query);
    if (this.core.settings.helpersOnly) refusePlainOperators(node);
    const plan = planOf(query, this.core.settings.helpersOnly);
    if (plan !== undefined) return new QueryResult(() => this.inSnapshot((executor) => executor.loadWith(node as SelectNode, plan)));
    return new QueryResult(() => {
      const core = this.core;
      if (!core.isReady) return core.ready().then(() => this.runCompiled(core.compiler.compile(node)));
      // Once the engine is ready, no tick is spent awaiting it. A statement a synchronous driver ran
      // at once comes back as its result; QueryResult turns a throw into a rejection.
      return this.runCompiled(core.compiler.compile(node));
    });
  }

  stream<R>(query: Executable<R>, options?: StreamOptions): RowStream<R>;
  stream(query: Expression<any>, options?: StreamOptions): RowStream<Record<string, unknown>>;
  stream(query: Executable<unknown> | Expression<any>, options?: StreamOptions): RowStream<any> {
    // Built and validated now, so bad input throws at the call site; nothing runs until the loop starts.
    const node = toNode(query);
    if (SelectBuilder.planOf(query) !== undefined) {
      throw new ValidationError("stream(): a select that loads relations (with / withCount) is read with execute()");
    }
    refuseUnstreamable(node);
    if (this.core.settings.helpersOnly) refusePlainOperators(node);
    const batchSize = streamBatchSize(options);
    return new Rows(() => this.openStream(() => this.core.compiler.compile(node), batchSize));
  }

  /**
   * @internal Runs a select and loads its relations (see engine/relation-loader) on this executor:
   * the root rows, then one statement per relation and level.
   */
  async loadWith(node: SelectNode, plan: RelationPlan): Promise<ExecutedQuery<unknown>> {
    const core = this.core;
    await core.ready();
    const run = async (statement: StatementNode): Promise<readonly unknown[]> =>
      (await this.runCompiled(core.compiler.compile(statement))).rows;
    const rows = (await run(node)) as Record<string, unknown>[];
    if (rows.length > 0) await loadRelations(run, rows, plan);
    return { rows, rowsAffected: rows.length };
  }

  /**
   * Runs `fn` where every statement reads one snapshot: a read-only REPEATABLE READ transaction of
   * its own (on SQLite a deferred one, whose first read fixes the snapshot). A transaction runs it on itself.
   */
  protected inSnapshot<T>(fn: (executor: BaseExecutor) => Promise<T>): Promise<T> {
    return this.transaction((tx) => fn(tx as unknown as BaseExecutor), { readOnly: true, isolation: "repeatable read" });
  }

  /**
   * @internal A stream of a statement compiled (and checked) by the caller: `compile` runs when the
   * stream opens, once the engine is ready (prepared statements).
   */
  streamCompiled<R>(compile: () => CompiledQuery, batchSize: number): RowStream<R> {
    return new Rows<R>(() => this.openStream(compile, batchSize));
  }

  async notify(channel: string, payload: string): Promise<void> {
    const sql = this.core.compiler.notifySql();
    if (!sql) this.core.compiler.unsupported("notifications (LISTEN/NOTIFY)", "Poll instead; the queue recipes do so on this dialect.");
    await this.core.ready();
    await this.runCompiled({ sql, params: [channel, payload], kind: "rawStatement", columns: undefined });
  }

  /**
   * Runs a compiled statement: its result, when the executor could run it synchronously, or a
   * promise of it. May throw instead of rejecting; execute() and notify() turn that into a rejection.
   */
  abstract runCompiled<R>(compiled: CompiledQuery): ExecutedQuery<R> | Promise<ExecutedQuery<R>>;
  /** Compiles the statement (`compile`, once the engine is ready) and opens its stream on the executor's connection (see RowStream). */
  protected abstract openStream(compile: () => CompiledQuery, batchSize: number): Promise<OpenedStream>;
  abstract transaction<T>(fn: (tx: TransactionHandle) => Promise<T>, options?: TransactionOptions): Promise<T>;
}

/** The relations a query loads beside its rows, checked for plain operators on a helpers-only engine. */
export function planOf(query: unknown, helpersOnly: boolean): RelationPlan | undefined {
  const plan = SelectBuilder.planOf(query);
  if (plan !== undefined && helpersOnly) refusePlanOperators(plan);
  return plan;
}

export function finishedError(): TransactionFinishedError {
  return new TransactionFinishedError(
    "This transaction has already finished: its callback returned, so the statement was not sent. Issue statements on the handle inside the callback, before it returns.",
  );
}

/** A transaction-control statement; resolves to the server's command tag, where the driver reports one. */
export function runSql(core: EngineCore, connection: DriverConnection, sql: string): Promise<string | undefined> {
  return core.control(connection, sql);
}
