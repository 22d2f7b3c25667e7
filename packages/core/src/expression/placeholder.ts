import type { Expression } from "../ast/expression.js";
import { brandExpression } from "../ast/expression.js";
import type { ExpressionNode, PlaceholderNode } from "../ast/value-node.js";
import { placeholderNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import type { ColumnKind, ColumnMeta } from "../schema/column-meta.js";
import { describe } from "./assert-bindable.js";

/** The JavaScript value a placeholder of each declared kind takes (the column's own check still applies). */
export interface PlaceholderValueTypes {
  text: string;
  varchar: string;
  uuid: string;
  enum: string;
  date: string;
  integer: number;
  real: number;
  bigint: bigint | number;
  numeric: string | number | bigint;
  boolean: boolean;
  datetime: Date;
  json: unknown;
  bytes: Uint8Array;
}

/**
 * How a placeholder is declared: a column kind, `"kind | null"` for one that may be given null, or
 * `"kind[]"` for a list of values that stands in `op.in(...)` / `op.notIn(...)` (one array parameter,
 * on a dialect that binds arrays: PostgreSQL).
 */
export type PlaceholderKind = ColumnKind | `${ColumnKind} | null` | `${ColumnKind}[]`;

/** The placeholders of a prepared statement: name to declared kind. */
export type PlaceholderSpec = Readonly<Record<string, PlaceholderKind>>;

type ValueOf<K> = K extends `${infer B extends ColumnKind}[]`
  ? readonly PlaceholderValueTypes[B][]
  : K extends `${infer B extends ColumnKind} | null`
    ? PlaceholderValueTypes[B] | null
    : K extends ColumnKind
      ? PlaceholderValueTypes[K]
      : never;

/** The values object `execute()` takes for a spec: every placeholder, with its declared type. */
export type PlaceholderValues<S extends PlaceholderSpec> = { readonly [N in keyof S]: ValueOf<S[N]> };

/** What the statement function receives: one placeholder expression per declared name. */
export type Placeholders<S extends PlaceholderSpec> = { readonly [N in keyof S]: Expression<ValueOf<S[N]>> };

/** Kinds whose values are of one JavaScript type: a placeholder may stand for a column of its own group. */
const GROUP: Record<ColumnKind, string> = {
  text: "string",
  varchar: "string",
  uuid: "string",
  enum: "string",
  date: "string",
  integer: "number",
  real: "number",
  bigint: "bigint",
  numeric: "numeric",
  boolean: "boolean",
  datetime: "datetime",
  json: "json",
  bytes: "bytes",
};

const NULLABLE = " | null";
const LIST = "[]";

/** The placeholder expressions for a spec; a malformed spec is a ValidationError. */
export function makePlaceholders<S extends PlaceholderSpec>(spec: S): { placeholders: Placeholders<S>; names: readonly string[] } {
  if (typeof spec !== "object" || spec === null || Array.isArray(spec) || Object.getPrototypeOf(spec) !== Object.prototype) {
    throw new ValidationError(`prepare: the placeholders must be an object of name to kind, got ${describe(spec)}`);
  }
  const names = Object.keys(spec);
  if (Reflect.ownKeys(spec).length !== names.length) {
    throw new ValidationError("prepare: the placeholder object has symbol or non-enumerable keys; use plain string keys");
  }
  const placeholders: Record<string, Expression<unknown>> = {};
  for (const name of names) {
    const declared = spec[name];
    const nullable = typeof declared === "string" && declared.endsWith(NULLABLE);
    const list = typeof declared === "string" && declared.endsWith(LIST);
    const kind = (
      nullable ? (declared as string).slice(0, -NULLABLE.length) : list ? (declared as string).slice(0, -LIST.length) : declared
    ) as ColumnKind;
    if (typeof kind !== "string" || !Object.hasOwn(GROUP, kind)) {
      throw new ValidationError(
        `prepare: placeholder "${name}" has kind ${typeof declared === "string" ? JSON.stringify(declared) : describe(declared)}; the kinds are ${Object.keys(GROUP).join(", ")}, each optionally followed by " | null" or "[]" (a list, for op.in)`,
      );
    }
    placeholders[name] = brandExpression(placeholderNode(name, kind, nullable, undefined, false, "", list));
  }
  return { placeholders: Object.freeze(placeholders) as Placeholders<S>, names: Object.freeze(names) };
}

/**
 * An expression given where a column's value goes: a placeholder is placed at that column (its value
 * will be checked as a literal there is: `allowNull` as for a literal at that position); any other
 * expression is returned as it is. A placeholder whose kind cannot hold the column's values, or that
 * may be null where a literal null is refused or means something else (a where-value), is refused here.
 */
export function placeAt(node: ExpressionNode, column: ColumnMeta, where: string, allowNull: boolean): ExpressionNode {
  if (node.kind !== "placeholder") return node;
  const label = where === "" ? `placeholder "${node.name}"` : `${where}: placeholder "${node.name}"`;
  checkGroup(node, column, label);
  if (node.list) {
    throw new ValidationError(`${label} is a list (declared "${node.declared}[]"): it stands only in op.in(...) or op.notIn(...)`);
  }
  if (node.nullable && !allowNull) {
    throw new ValidationError(
      `${label} is declared "${node.declared} | null" but stands where null is not a value (${column.field}${column.notNull ? " is NOT NULL" : ": a null where-value would mean IS NULL"}); declare it "${node.declared}"`,
    );
  }
  return placeholderNode(
    node.name,
    node.declared,
    node.nullable,
    column,
    allowNull && node.nullable,
    where || `${column.table}.${column.field}`,
  );
}

/** A list placeholder (`"kind[]"`) given to `op.in` / `op.notIn` on `column`: placed there, its elements checked at execute(). */
export function placeListAt(node: PlaceholderNode, column: ColumnMeta, where: string): PlaceholderNode {
  checkGroup(node, column, `${where}: placeholder "${node.name}"`);
  return placeholderNode(node.name, node.declared, false, column, false, where || `${column.table}.${column.field}`, true);
}

function checkGroup(node: PlaceholderNode, column: ColumnMeta, label: string): void {
  if (GROUP[node.declared] !== GROUP[column.kind]) {
    throw new ValidationError(
      `${label} is declared ${node.declared}${node.list ? "[]" : ""} but stands for ${column.field}, a ${column.kind} column`,
    );
  }
}

export function isPlaceholder(node: ExpressionNode): node is PlaceholderNode {
  return node.kind === "placeholder";
}
