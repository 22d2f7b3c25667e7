import type { Expression } from "../ast/expression.js";
import { expressionNode } from "../ast/expression.js";
import type { ColumnKind, ColumnReference, ColumnSpec } from "./column-meta.js";
import { plainColumnSpec } from "./plain-column-spec.js";

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

const COLUMN = Symbol.for("tempest-db-js.column");

/** The default of every defaultRandom() column: frozen and shared. */
const RANDOM = Object.freeze({ kind: "random" as const });

/**
 * A column builder. Every method returns a new column; the type parameters track the TypeScript
 * value type `T`, whether it is NOT NULL (`N`) and whether the database fills it when omitted (`D`).
 */
export class Column<T, N extends boolean = false, D extends boolean = false, K extends ColumnKind = ColumnKind> {
  declare readonly __value: T;
  /** Phantom: the column's kind, which expressions need where the value type alone is ambiguous (numeric and text are both strings). */
  declare readonly __kind: K;
  declare readonly __notNull: N;
  declare readonly __hasDefault: D;
  readonly spec: ColumnSpec;

  constructor(spec: ColumnSpec) {
    this.spec = Object.freeze(spec);
    Object.defineProperty(this, COLUMN, { value: true });
  }

  notNull(): Column<T, true, D, K> {
    return new Column({ ...this.spec, notNull: true });
  }

  /** Primary key columns are NOT NULL. */
  primaryKey(): Column<T, true, D, K> {
    return new Column({ ...this.spec, primaryKey: true, notNull: true });
  }

  unique(): Column<T, N, D, K> {
    return new Column({ ...this.spec, unique: true });
  }

  /** A default the database applies when an insert omits the column: a value or an expression such as `sql.now()`. */
  default(value: T | Expression<unknown>): Column<T, N, true, K> {
    const node = expressionNode(value);
    return new Column({
      ...this.spec,
      default: Object.freeze(node ? { kind: "expression", node } : { kind: "value", value }),
    });
  }

  /** A random uuid default: the builder fills it on insert, and the database where it has a function for it. */
  defaultRandom(this: Column<string, N, D, K>): Column<string, N, true, K> {
    return new Column({ ...this.spec, default: RANDOM });
  }

  /** Override the database name of this column (wins over the model's `naming`). */
  name(dbName: string): Column<T, N, D, K> {
    return new Column({ ...this.spec, dbName });
  }

  references(model: () => unknown, field?: string, options: { onDelete?: ColumnReference["onDelete"] } = {}): Column<T, N, D, K> {
    return new Column({ ...this.spec, references: { model, field, onDelete: options.onDelete } });
  }

  static isColumn(value: unknown): value is Column<unknown, boolean, boolean> {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[COLUMN] === true;
  }
}

function make<T, K extends ColumnKind>(kind: K, extra: Partial<ColumnSpec> = {}): Column<T, false, false, K> {
  return new Column<T, false, false, K>({ ...plainColumnSpec(kind), ...extra });
}

export const column = {
  uuid: () => make<string, "uuid">("uuid"),
  text: () => make<string, "text">("text"),
  varchar: (length: number) => make<string, "varchar">("varchar", { length }),
  integer: () => make<number, "integer">("integer"),
  bigint: () => make<bigint, "bigint">("bigint"),
  real: () => make<number, "real">("real"),
  /** Exact decimals travel as strings so that no digit is lost. */
  numeric: (precision?: number, scale?: number) => make<string, "numeric">("numeric", { precision, scale }),
  boolean: () => make<boolean, "boolean">("boolean"),
  /** A point in time, stored in UTC with millisecond precision on every dialect. */
  datetime: () => make<Date, "datetime">("datetime"),
  /** A calendar date as `YYYY-MM-DD`. */
  date: () => make<string, "date">("date"),
  json: <T extends JsonValue = JsonValue>() => make<T, "json">("json"),
  enum: <const V extends readonly [string, ...string[]]>(...values: V) =>
    make<V[number], "enum">("enum", { enumValues: Object.freeze([...values]) }),
  bytes: () => make<Uint8Array, "bytes">("bytes"),
};
