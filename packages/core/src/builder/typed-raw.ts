import type { Expression } from "../ast/expression.js";
import { expressionNode } from "../ast/expression.js";
import { rawStatementNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { JsonValue } from "../schema/column.js";
import type { ColumnKind } from "../schema/column-meta.js";
import type { Simplify } from "../types/model-types.js";
import type { Executable } from "./executable.js";
import { markExecutable } from "./executable.js";
import { fieldNames, isPlainRecord } from "./resolve-set.js";
import { internColumns, resultColumn } from "./result-columns.js";

/** The JavaScript type of each column kind, as every dialect decodes it. */
export interface KindTypes {
  uuid: string;
  text: string;
  varchar: string;
  enum: string;
  integer: number;
  bigint: bigint;
  real: number;
  numeric: string;
  boolean: boolean;
  datetime: Date;
  date: string;
  json: JsonValue;
  bytes: Uint8Array;
}

/** A declared result column: its kind, with `?` when it may be NULL (`"datetime?"`). */
export type DeclaredKind = ColumnKind | `${ColumnKind}?`;

/** The row a typed raw query declares. */
export type DeclaredRow<D extends Record<string, DeclaredKind>> = Simplify<{
  -readonly [K in keyof D]: D[K] extends `${infer B extends ColumnKind}?`
    ? KindTypes[B] | null
    : D[K] extends ColumnKind
      ? KindTypes[D[K]]
      : never;
}>;

const KINDS: ReadonlySet<string> = new Set<ColumnKind>([
  "uuid",
  "text",
  "varchar",
  "enum",
  "integer",
  "bigint",
  "real",
  "numeric",
  "boolean",
  "datetime",
  "date",
  "json",
  "bytes",
]);

/**
 * A raw SELECT with a declared row: each key a column the statement returns (by that name: quote
 * mixed-case aliases, `AS "createdAt"`), read in this order and decoded by its kind exactly as a
 * model column of that kind is, on every database.
 */
export function typedQuery<const D extends Record<string, DeclaredKind>>(query: Expression<any>, columns: D): Executable<DeclaredRow<D>> {
  const node = expressionNode(query);
  if (!node) throw new ValidationError("sql.typed: the statement is an sql.expr`...` or sql.raw(...)");
  if (!isPlainRecord(columns)) throw new ValidationError("sql.typed: declare the columns as { name: kind }");
  const names = fieldNames(columns, "sql.typed");
  if (names.length === 0) throw new ValidationError("sql.typed: declare at least one column");
  const metas = names.map((name) => {
    const declared = columns[name];
    const nullable = typeof declared === "string" && declared.endsWith("?");
    const kind = nullable ? (declared as string).slice(0, -1) : declared;
    if (typeof kind !== "string" || !KINDS.has(kind)) {
      throw new ValidationError(
        `sql.typed: column "${name}" has no kind ${JSON.stringify(declared)} (kinds: ${[...KINDS].join(", ")}, each with ? for a nullable column)`,
      );
    }
    // A server's integer expressions come back in several widths and types (PostgreSQL's COUNT is a
    // bigint sent as text, MySQL's SUM a decimal): read every integer as 64 bits, then as a safe number.
    if (kind === "integer") return resultColumn(undefined, name, "bigint", !nullable, "safeNumber");
    // MySQL's AVG is a decimal string: every real becomes a number.
    if (kind === "real") return resultColumn(undefined, name, "real", !nullable, "number");
    return resultColumn(undefined, name, kind as ColumnKind, !nullable, undefined);
  });
  const statement = rawStatementNode(node, internColumns(metas, "typed"));
  const executable = { toNode: () => statement };
  markExecutable(executable);
  return executable as Executable<DeclaredRow<D>>;
}
