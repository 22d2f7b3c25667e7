import type { StatementNode } from "../ast/statement-node.js";
import type { PlaceholderNode } from "../ast/value-node.js";
import { checkValue } from "../builder/check-value.js";
import type { Executable } from "../builder/executable.js";
import { SelectBuilder } from "../builder/select-builder.js";
import { acceptKind, fits, valueAccepter } from "../builder/value-accepter.js";
import { textProblem } from "../codec/check-text.js";
import type { CompiledQuery, PlaceholderSlot } from "../compiler/compiled-query.js";
import type { SqlCompiler } from "../compiler/sql-compiler.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import type { PlaceholderSpec, Placeholders, PlaceholderValues } from "../expression/placeholder.js";
import { makePlaceholders } from "../expression/placeholder.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { EngineCore } from "./engine-core.js";
import type { Executor } from "./executor.js";
import { BaseExecutor, toNode } from "./executor.js";
import type { FastBinder } from "./fast-binder.js";
import { fastBinder } from "./fast-binder.js";
import type { ExecutedQuery } from "./query-result.js";
import { QueryResult } from "./query-result.js";
import { refusePlainOperators } from "./refuse-plain-operators.js";
import type { RowStream, StreamOptions } from "./row-stream.js";
import { refuseUnstreamable, streamBatchSize } from "./row-stream.js";
import { Transaction } from "./transaction.js";

/**
 * `engine.prepare` for any executor: the engine, or a session or transaction of it. The statement
 * belongs to the engine, whatever executor made it; `execute(values, on)` runs it on `on` (code
 * handed an executor, a library's, keeps one statement per engine: key a WeakMap by `db.engineKey`).
 */
export function prepare<S extends PlaceholderSpec, R>(
  db: Executor,
  placeholders: S,
  build: (p: Placeholders<S>) => Executable<R>,
): PreparedStatement<S, R> {
  if (!(db instanceof BaseExecutor)) throw new ValidationError("prepare: db must be an engine, or a session or transaction of one");
  return new PreparedStatement(db, (db as unknown as { core: EngineCore }).core, placeholders, build);
}

/** One compilation of the statement, for one compiler (the engine replaces its compiler once, when ready). */
interface Template {
  readonly compiler: SqlCompiler;
  readonly compiled: CompiledQuery;
  readonly slots: readonly PlaceholderSlot[];
  /** Per slot: its placeholder's name, acceptKind and valueAccepter of its column, and whether the codec binds its non-object values unchanged. */
  readonly names: readonly string[];
  readonly kinds: readonly number[];
  readonly accepts: readonly ((value: unknown) => boolean)[];
  readonly asIs: readonly boolean[];
  readonly nulInText: boolean;
  /** The compiled parameters, not frozen: V8 copies a frozen array ~20 times slower. */
  readonly params: readonly unknown[];
  /** The generated binder for the usual values, when every slot's codec binds them unchanged. */
  readonly fast: FastBinder | undefined;
}

/**
 * A statement built and compiled once, run many times with other values (`engine.prepare`). Each
 * run checks every value against the column its placeholder stands for, exactly as a literal value
 * there is checked when a statement is built, encodes it as the compiler encodes a literal, and binds
 * it into the SQL text compiled once. The statement's shape (its text, columns, operators) never
 * depends on the values.
 */
export class PreparedStatement<S extends PlaceholderSpec, R> {
  readonly #core: EngineCore;
  readonly #engine: BaseExecutor;
  readonly #node: StatementNode;
  readonly #names: readonly string[];
  #template: Template;

  /** @internal Made by `engine.prepare`. */
  constructor(engine: BaseExecutor, core: EngineCore, spec: S, build: (p: Placeholders<S>) => Executable<R>) {
    const { placeholders, names } = makePlaceholders(spec);
    const query = build(placeholders) as Executable<unknown>;
    if (SelectBuilder.planOf(query) !== undefined) {
      throw new ValidationError("engine.prepare: a select that loads relations (with / withCount) runs with execute()");
    }
    const node = toNode(query);
    if (core.settings.helpersOnly) refusePlainOperators(node);
    this.#core = core;
    this.#engine = engine;
    this.#node = node;
    this.#names = names;
    this.#template = this.#compile(core.compiler);
    const used = new Set(this.#template.slots.map((s) => s.node.name));
    const unused = names.filter((name) => !used.has(name));
    if (unused.length > 0) {
      throw new ValidationError(
        `prepare: placeholder${unused.length > 1 ? "s" : ""} ${unused.map((n) => `"${n}"`).join(", ")} declared but not used`,
      );
    }
  }

  /** The SQL text, as compiled for the engine's current capabilities. */
  get sql(): string {
    return this.#current().compiled.sql;
  }

  /**
   * Runs the statement with `values` for its placeholders, on the engine, or on `on` (a transaction
   * or session of the same engine), exactly as `execute()` there runs a statement: on the engine or a
   * session when the result is first awaited, on a transaction at once, in order with its other
   * statements. The values are checked now, at the call: a bad one throws a ValidationError here and
   * nothing is sent.
   */
  execute(values: PlaceholderValues<S>, on?: Executor): QueryResult<R> {
    const core = this.#core;
    const executor = this.#executor(on);
    if (executor instanceof Transaction) {
      // As tx.execute does: issued at once, in order with the transaction's other statements. A
      // transaction exists only once the engine is ready, so the current compiler is the final one.
      const bound = this.#bind(this.#current(), values);
      let run: Promise<ExecutedQuery<R>> | ExecutedQuery<R>;
      try {
        run = executor.runCompiled<R>(bound);
      } catch (error) {
        run = Promise.reject(error);
      }
      return QueryResult.issued(run);
    }
    const compiled = this.#bind(this.#template, values);
    return new QueryResult<R>(() => {
      if (!core.isReady) return core.ready().then(() => executor.runCompiled<R>(this.#bind(this.#current(), values)));
      return executor.runCompiled<R>(compiled);
    });
  }

  /**
   * The statement's rows with `values`, read a batch at a time, as `stream()` on the engine, or on
   * `on` (a transaction or session of the same engine), reads a select. The values are checked now,
   * at the call, as execute() checks them; nothing runs until the loop starts.
   */
  stream(
    this: [R] extends [never] ? "stream() reads rows: this statement returns none; run it with execute()" : PreparedStatement<S, R>,
    values: PlaceholderValues<S>,
    options?: StreamOptions,
    on?: Executor,
  ): RowStream<R>;
  stream(values: PlaceholderValues<S>, options?: StreamOptions, on?: Executor): RowStream<R> {
    refuseUnstreamable(this.#node);
    const batchSize = streamBatchSize(options);
    const executor = this.#executor(on);
    const template = this.#current();
    const bound = this.#bind(template, values, "stream");
    // The engine replaces its compiler once, when ready: bound again then, as execute() does.
    return executor.streamCompiled<R>(() => {
      const current = this.#current();
      return current === template ? bound : this.#bind(current, values, "stream");
    }, batchSize);
  }

  /** The statement as it would be sent with `values`: its SQL and encoded parameters (nothing runs). */
  compile(values: PlaceholderValues<S>): CompiledQuery {
    return this.#bind(this.#current(), values);
  }

  #current(): Template {
    const compiler = this.#core.compiler;
    if (this.#template.compiler !== compiler) this.#template = this.#compile(compiler);
    return this.#template;
  }

  #compile(compiler: SqlCompiler): Template {
    const { compiled, slots } = compiler.compilePrepared(this.#node);
    const columns = slots.map((s) => s.node.column as ColumnMeta);
    const names = slots.map((s) => s.node.name);
    const kinds = columns.map(acceptKind);
    const accepts = columns.map(valueAccepter);
    // A list placeholder's value is an array: always bound through the general path, element by element.
    const asIs = slots.map((s, i) => !s.node.list && compiler.codec.encodesAsIs(columns[i] as ColumnMeta));
    const nulInText = compiler.capabilities.nulInText;
    const params = [...compiled.params];
    const fast = asIs.every(Boolean)
      ? fastBinder({ names, kinds, accepts, indexes: slots.map((s) => s.index), declared: this.#names.length, params, nulInText })
      : undefined;
    return { compiler, compiled, slots, names, kinds, accepts, asIs, nulInText, params, fast };
  }

  #executor(on: Executor | undefined): BaseExecutor {
    if (on === undefined) return this.#engine;
    if (!(on instanceof BaseExecutor) || (on as unknown as { core: EngineCore }).core !== this.#core) {
      throw new ValidationError(
        "execute(values, on) / stream(values, options, on): `on` must be a transaction or session of the engine that prepared the statement",
      );
    }
    return on;
  }

  /** `call` names the method in error messages. */
  #bind(template: Template, values: PlaceholderValues<S>, call: "execute" | "stream" = "execute"): CompiledQuery {
    const fast = template.fast?.(values);
    if (fast !== undefined) {
      const { compiled } = template;
      return { sql: compiled.sql, params: fast, kind: compiled.kind, columns: compiled.columns, nesting: compiled.nesting };
    }
    if (typeof values !== "object" || values === null || Array.isArray(values)) {
      throw new ValidationError(`${call}: expects an object of placeholder values, got ${describe(values)}`);
    }
    const record = values as Record<string, unknown>;
    const names = this.#names;
    // Every name is read below; a key beyond them would be a value that silently goes nowhere.
    if (Object.keys(record).length !== names.length) this.#extraKeys(record, call);
    const { compiled, slots, compiler, names: slotNames, kinds, accepts, asIs, nulInText } = template;
    const params = template.params.slice();
    for (let i = 0; i < slots.length; i++) {
      const value = record[slotNames[i] as string];
      // The usual value, a fitting string, number or boolean that the codec binds unchanged, is taken
      // as it is (the same tests as a bulk insert's cells, exactly as strict as checkValue); anything
      // else (null, an object, a misfit, text to refuse) takes the full path, which also words the error.
      if (
        fits(kinds[i] as number, accepts[i] as (v: unknown) => boolean, value) &&
        asIs[i] === true &&
        (typeof value !== "string" || textProblem(value, nulInText) === undefined)
      ) {
        params[(slots[i] as PlaceholderSlot).index] = value;
        continue;
      }
      const slot = slots[i] as PlaceholderSlot;
      const node = slot.node;
      if (value === undefined) throw this.#missing(node, record, call);
      const column = node.column as ColumnMeta;
      if (node.list) {
        params[slot.index] = bindList(compiler, node, column, value, call);
        continue;
      }
      checkValue(column, value, node.where, node.allowNull);
      params[slot.index] = compiler.encodePlaceholderValue(value, column);
    }
    return { sql: compiled.sql, params, kind: compiled.kind, columns: compiled.columns, nesting: compiled.nesting };
  }

  #missing(node: PlaceholderNode, record: Record<string, unknown>, call: string): ValidationError {
    return Object.hasOwn(record, node.name)
      ? new ValidationError(`${call}: placeholder "${node.name}" is undefined; pass a value${node.nullable ? " or null" : ""}`)
      : new ValidationError(`${call}: no value for placeholder "${node.name}"`);
  }

  #extraKeys(record: Record<string, unknown>, call: string): undefined {
    const known = new Set(this.#names);
    const extra = Object.keys(record).filter((key) => !known.has(key));
    if (extra.length > 0) {
      throw new ValidationError(
        `${call}: no placeholder named ${extra.map((k) => JSON.stringify(k)).join(", ")} (the placeholders are ${this.#names.join(", ")})`,
      );
    }
    return undefined;
  }
}

/** A list placeholder's value: an array, each element checked and encoded as a value of `op.in([...])` is. */
function bindList(compiler: SqlCompiler, node: PlaceholderNode, column: ColumnMeta, value: unknown, call: string): unknown[] {
  if (!Array.isArray(value)) {
    throw new ValidationError(
      `${call}: placeholder "${node.name}" is a list (declared "${node.declared}[]"): expects an array, got ${describe(value)}`,
    );
  }
  const encoded = new Array(value.length);
  // An index loop: a hole in a sparse array is undefined, and refused, instead of skipped.
  for (let i = 0; i < value.length; i++) {
    checkValue(column, value[i], `${node.where}[${i}]`, false);
    encoded[i] = compiler.encodePlaceholderValue(value[i], column);
  }
  return encoded;
}
