import type { CompoundNode, SetOperand, SetOperator } from "../ast/compound-node.js";
import { compoundNode, partsOf } from "../ast/compound-node.js";
import { nestingOf } from "../ast/row-nesting.js";
import type { OrderByItem, StatementNode } from "../ast/statement-node.js";
import { orderByItem } from "../ast/statement-node.js";
import { outputColumnNode } from "../ast/value-node.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import type { ColumnKind, ColumnMeta } from "../schema/column-meta.js";
import type { CompoundRow, MatchingColumns } from "../types/set-types.js";
import type { Executable } from "./executable.js";
import { isExecutable, markExecutable } from "./executable.js";
import { conversionNameOf, derivedColumn } from "./result-columns.js";
import type { OrderByOptions } from "./select-types.js";

/** A query a set operation takes as a part: a select, or another set operation. */
export type SetPart<R> = Executable<R>;

/** Where a set operation's outputs are read from when it is wrapped (ORDER BY of an expression, a nested part). */
export const SET_ALIAS = "tempest_set";

/**
 * The result of `union` / `unionAll` / `intersect` / `intersectAll` / `except` / `exceptAll`: rows
 * of the outputs' keys, which `orderBy` names; chain further set operations left to right.
 */
export class CompoundBuilder<R> implements Executable<R> {
  declare readonly __row?: [R];
  readonly #node: CompoundNode;

  static {
    markExecutable(this.prototype);
  }

  constructor(node: CompoundNode) {
    this.#node = node;
  }

  union<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return this.#combine("union", false, other);
  }

  unionAll<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return this.#combine("union", true, other);
  }

  intersect<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return this.#combine("intersect", false, other);
  }

  intersectAll<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return this.#combine("intersect", true, other);
  }

  except<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return this.#combine("except", false, other);
  }

  exceptAll<R2>(other: SetPart<R2> & MatchingColumns<R, R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return this.#combine("except", true, other);
  }

  /** `this op other` as a new builder: the body of every set-operation method. */
  #combine<R2>(op: SetOperator, all: boolean, other: SetPart<R2>): CompoundBuilder<CompoundRow<R, R2>> {
    return new CompoundBuilder(setOperation(this.#node, op, all, other));
  }

  /** Sorts the whole result by an output key (the same rules as a select: enum order, NULL largest). */
  orderBy(key: keyof R & string, direction: "asc" | "desc" = "asc", options?: OrderByOptions): CompoundBuilder<R> {
    if (direction !== "asc" && direction !== "desc") throw new ValidationError(`orderBy: direction must be "asc" or "desc"`);
    const nulls = options?.nulls;
    if (nulls !== undefined && nulls !== "first" && nulls !== "last") throw new ValidationError(`orderBy: nulls must be "first" or "last"`);
    const node = this.#node;
    const column = node.columns.find((c) => c.field === key);
    if (!column) throw new ValidationError(`orderBy: the set operation has no output "${String(key)}" (${fieldList(node.columns)})`);
    const item = orderByItem(column, outputColumnNode(column.name), direction, nulls);
    return new CompoundBuilder(withClauses(node, [...node.orderBy, item], node.limit, node.offset));
  }

  limit(count: number): CompoundBuilder<R> {
    const node = this.#node;
    return new CompoundBuilder(withClauses(node, node.orderBy, nonNegative(count, "limit"), node.offset));
  }

  offset(count: number): CompoundBuilder<R> {
    const node = this.#node;
    return new CompoundBuilder(withClauses(node, node.orderBy, node.limit, nonNegative(count, "offset")));
  }

  toNode(): StatementNode {
    return this.#node;
  }
}

function withClauses(node: CompoundNode, orderBy: readonly OrderByItem[], limit: number | undefined, offset: number | undefined) {
  return compoundNode(node.op, node.all, node.left, node.right, node.columns, orderBy, limit, offset);
}

function nonNegative(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new ValidationError(`${what} expects a non-negative integer, got ${describe(value)}`);
  return value;
}

const NAMES: Readonly<Record<SetOperator, string>> = { union: "union", intersect: "intersect", except: "except" };

/**
 * `left op right`, checked where it is built: each part a select or set operation without a lock,
 * flat rows (a joined select projects with `.columns()`), and the same outputs — keys in the same
 * order, each of one kind — so every row decodes by one plan on every database.
 */
export function setOperation(left: SetOperand, op: SetOperator, all: boolean, right: unknown): CompoundNode {
  const what = `${NAMES[op]}${all ? "All" : ""}()`;
  const other = operandOf(right, what);
  for (const part of [...partsOf(left), ...partsOf(other)]) {
    if (part.lock)
      throw new ValidationError(
        `${what}: a part of a set operation cannot lock its rows (PostgreSQL refuses FOR UPDATE with UNION, INTERSECT and EXCEPT). Lock the rows in a separate select inside the transaction.`,
      );
    if (nestingOf(part))
      throw new ValidationError(`${what}: a joined select is a part only with .columns({...}): name the outputs the parts share`);
    if (part.orderBy.length > 0 && part.limit === undefined && part.offset === undefined)
      throw new ValidationError(
        `${what}: orderBy() inside a part does not order the result of a set operation; order the result instead, (a).${NAMES[op]}(b).orderBy(key)`,
      );
  }
  const a = left.columns;
  const b = other.columns;
  if (a.length !== b.length || a.some((c, i) => c.field !== (b[i] as ColumnMeta).field))
    throw new ValidationError(
      `${what}: the parts have different outputs (${fieldList(a)}) and (${fieldList(b)}); list the same keys in the same order`,
    );
  const columns = a.map((first, i) => {
    const second = b[i] as ColumnMeta;
    if (kindGroup(first.kind) !== kindGroup(second.kind) || conversionNameOf(first) !== conversionNameOf(second)) {
      throw new ValidationError(
        `${what}: "${first.field}" is ${first.kind} in the first part and ${second.kind} in the second; the parts' outputs need one kind each`,
      );
    }
    return derivedColumn(first, SET_ALIAS, first.notNull && second.notNull);
  });
  return compoundNode(op, all, left, other, columns, NO_ORDER, undefined, undefined);
}

const NO_ORDER: readonly OrderByItem[] = Object.freeze([]);

function operandOf(value: unknown, what: string): SetOperand {
  const node = isExecutable(value) ? value.toNode() : undefined;
  if (node?.kind === "select" || node?.kind === "compound") return node;
  throw new ValidationError(`${what} takes a select(...) or another set operation, got ${node ? node.kind : describe(value)}`);
}

/** Kinds that travel alike: text and varchar are both strings in every database and driver. */
function kindGroup(kind: ColumnKind): string {
  return kind === "varchar" ? "text" : kind;
}

function fieldList(columns: readonly ColumnMeta[]): string {
  return columns.map((c) => c.field).join(", ");
}
