import { andNodes } from "../ast/condition-node.js";
import type { LockClause, OrderByItem, SelectNode, StatementNode } from "../ast/statement-node.js";
import { lockClause, orderByItem, selectNode, subqueryNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import { describe } from "../expression/assert-bindable.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { Model, ModelClass } from "../schema/model.js";
import { columnOf, tableMeta } from "../schema/table-meta.js";
import type { FieldOf, RowOf, Simplify, WhereArg } from "../types/model-types.js";
import type { Executable } from "./executable.js";
import { markExecutable } from "./executable.js";
import { FRESH } from "./frozen-node.js";
import { resolveFields } from "./resolve-fields.js";
import { resolveWhere } from "./resolve-where.js";
import type { Subquery } from "./subquery.js";
import { makeSubquery } from "./subquery.js";

export type LockTarget = string | ModelClass;

export interface ForUpdateOptions {
  /** Skip rows another transaction has locked instead of waiting for them. */
  skipLocked?: boolean;
  /** Fail at once instead of waiting for a locked row. */
  noWait?: boolean;
  /** Restrict the lock to these tables (names or model classes). */
  of?: readonly LockTarget[];
}

export class SelectBuilder<I extends Model, R> implements Executable<R> {
  declare readonly __row?: [R];
  readonly #node: SelectNode;

  static {
    // On the prototype: one brand for every builder, instead of a property defined per instance.
    markExecutable(this.prototype);
  }

  /** False while #node is the fresh copy only this builder holds (see FRESH); frozen when handed out. */
  #frozen: boolean;

  /** Builders come from the statement functions; a node passed in from elsewhere is frozen here. */
  constructor(node: SelectNode, fresh?: typeof FRESH) {
    this.#frozen = fresh !== FRESH;
    this.#node = this.#frozen ? Object.freeze(node) : node;
  }

  /** Adds conditions; several calls are ANDed. */
  where(condition: WhereArg<I>): SelectBuilder<I, R> {
    const resolved = resolveWhere(this.#node.table, condition, () => `select(${this.#node.table.model.name}).where`);
    return new SelectBuilder(withSelect(this.#node, "where", andNodes(this.#node.where, resolved)), FRESH);
  }

  /** Adds a sort key; call again for further keys. */
  orderBy(field: FieldOf<I>, direction: "asc" | "desc" = "asc"): SelectBuilder<I, R> {
    if (direction !== "asc" && direction !== "desc") throw new ValidationError(`orderBy: direction must be "asc" or "desc"`);
    const shared = orderItem(columnOf(this.#node.table, field, "orderBy"), direction);
    const previous = this.#node.orderBy;
    return new SelectBuilder(
      withSelect(this.#node, "orderBy", previous.length === 0 ? shared.alone : Object.freeze([...previous, shared.item])),
      FRESH,
    );
  }

  limit(count: number): SelectBuilder<I, R> {
    return new SelectBuilder(withSelect(this.#node, "limit", nonNegativeInteger(count, "limit")), FRESH);
  }

  offset(count: number): SelectBuilder<I, R> {
    return new SelectBuilder(withSelect(this.#node, "offset", nonNegativeInteger(count, "offset")), FRESH);
  }

  /** Locks the selected rows until the transaction ends. Only meaningful inside `transaction()`. */
  forUpdate(options: ForUpdateOptions = {}): SelectBuilder<I, R> {
    return new SelectBuilder(withSelect(this.#node, "lock", this.#lock("update", options)), FRESH);
  }

  /** A shared lock: others may read and share-lock the rows, nobody may change them. */
  forShare(options: ForUpdateOptions = {}): SelectBuilder<I, R> {
    return new SelectBuilder(withSelect(this.#node, "lock", this.#lock("share", options)), FRESH);
  }

  /**
   * Projects one field and marks the SELECT as the operand of `in` / `notIn`. ORDER BY, LIMIT and the
   * lock travel with it into the outer statement.
   */
  asSubquery<K extends FieldOf<I>>(field: K): Subquery<Exclude<RowOf<I>[K], null>> {
    // resolveFields returns one shared array per projection, so the compiled column list is reused.
    const columns = resolveFields(this.#node.table, [columnOf(this.#node.table, field, "asSubquery").field], "asSubquery");
    return makeSubquery(subqueryNode(withSelect(this.#node, "columns", columns)));
  }

  toNode(): StatementNode {
    if (!this.#frozen) {
      Object.freeze(this.#node);
      this.#frozen = true;
    }
    return this.#node;
  }

  #lock(strength: LockClause["strength"], options: ForUpdateOptions): LockClause {
    if (typeof options !== "object" || options === null) throw new ValidationError("forUpdate/forShare take an options object");
    for (const key of Object.keys(options)) {
      if (key !== "skipLocked" && key !== "noWait" && key !== "of")
        throw new ValidationError(`for${strength === "update" ? "Update" : "Share"}: unknown option "${key}"`);
    }
    if (options.skipLocked && options.noWait) throw new ValidationError("skipLocked and noWait cannot be combined");
    const wait = options.skipLocked ? "skipLocked" : options.noWait ? "noWait" : "wait";
    if (options.of === undefined) return LOCKS[strength][wait];
    const table = this.#node.table.name;
    const of = options.of.map((target) => {
      const name = typeof target === "string" ? target : tableMeta(target).name;
      if (name !== table) throw new ValidationError(`lock of: "${name}" is not a table of this query (${table})`);
      return name;
    });
    return lockClause(strength, wait, of);
  }
}

/** The fields of a select node its builder methods change, one per call. */
type SelectChange = Exclude<keyof SelectNode, "kind" | "table">;

/**
 * A copy of a select node with one field changed, written out field by field: V8 takes several times
 * longer to freeze a spread copy than a literal, and a key with its value (rather than an object of
 * changes, one shape per method) keeps every read here monomorphic. The copy is fresh (see FRESH): the
 * new builder freezes it when it hands it out.
 */
function withSelect<K extends SelectChange>(node: SelectNode, key: K, value: SelectNode[K]): SelectNode {
  return selectNode(
    node.table,
    key === "columns" ? (value as SelectNode["columns"]) : node.columns,
    key === "where" ? (value as SelectNode["where"]) : node.where,
    key === "orderBy" ? (value as SelectNode["orderBy"]) : node.orderBy,
    key === "limit" ? (value as SelectNode["limit"]) : node.limit,
    key === "offset" ? (value as SelectNode["offset"]) : node.offset,
    key === "lock" ? (value as SelectNode["lock"]) : node.lock,
  );
}

/*
 * Clause nodes that depend only on the model and the options are frozen values, shared by every
 * query that asks for them instead of being allocated per builder call.
 */
const LOCKS = {
  update: {
    wait: lockClause("update", "wait", []),
    skipLocked: lockClause("update", "skipLocked", []),
    noWait: lockClause("update", "noWait", []),
  },
  share: {
    wait: lockClause("share", "wait", []),
    skipLocked: lockClause("share", "skipLocked", []),
    noWait: lockClause("share", "noWait", []),
  },
} as const;

interface SharedOrder {
  readonly item: OrderByItem;
  /** ORDER BY this key alone. */
  readonly alone: readonly OrderByItem[];
}
const orderItems = new WeakMap<ColumnMeta, { asc?: SharedOrder; desc?: SharedOrder }>();

/** The sort key for a column and direction, and the one-key ORDER BY made of it. */
function orderItem(column: ColumnMeta, direction: "asc" | "desc"): SharedOrder {
  let byDirection = orderItems.get(column);
  if (!byDirection) orderItems.set(column, (byDirection = {}));
  let shared = byDirection[direction];
  if (!shared) {
    const item = orderByItem(column, direction);
    shared = { item, alone: Object.freeze([item]) };
    byDirection[direction] = shared;
  }
  return shared;
}

function nonNegativeInteger(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new ValidationError(`${what} expects a non-negative integer, got ${describe(value)}`);
  return value;
}

/** Selects every column of a model, or only the listed fields (rows then carry exactly those fields). */
export function select<M extends ModelClass>(model: M): SelectBuilder<InstanceType<M>, RowOf<InstanceType<M>>>;
export function select<M extends ModelClass, const K extends readonly FieldOf<InstanceType<M>>[]>(
  model: M,
  fields: K,
): SelectBuilder<InstanceType<M>, Simplify<Pick<RowOf<InstanceType<M>>, K[number]>>>;
export function select(model: ModelClass, fields?: readonly string[]): SelectBuilder<Model, unknown> {
  const table = tableMeta(model);
  const columns = fields === undefined ? table.columns : resolveFields(table, fields, `select(${model.name})`);
  return new SelectBuilder(selectNode(table, columns, undefined, NO_ORDER, undefined, undefined, undefined), FRESH);
}

const NO_ORDER: readonly OrderByItem[] = Object.freeze([]);
