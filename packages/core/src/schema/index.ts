import type { FieldOf, WhereInput } from "../types/model-types.js";
import type { Model } from "./model.js";

export interface IndexSpec {
  readonly name: string;
  readonly fields: readonly string[];
  readonly unique: boolean;
  readonly where: unknown;
}

const INDEX = Symbol.for("tempest-db-js.index");

/**
 * An index declared on a model (`static indexes = [index(...)]`). Give the model as the type
 * argument to have the field names and the predicate checked: `index<Outbound>(...)`.
 */
export class Index<I extends Model = Model> {
  readonly spec: IndexSpec;
  declare readonly __model: I;

  constructor(spec: IndexSpec) {
    this.spec = Object.freeze(spec);
    Object.defineProperty(this, INDEX, { value: true });
  }

  unique(): Index<I> {
    return new Index({ ...this.spec, unique: true });
  }

  /** Make the index partial. On a dialect without partial indexes see the capability `partialIndexes`. */
  where(condition: WhereInput<I>): Index<I> {
    return new Index({ ...this.spec, where: condition });
  }

  static isIndex(value: unknown): value is Index {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[INDEX] === true;
  }
}

export function index<I extends Model = Model>(name: string, fields: readonly FieldOf<I>[]): Index<I> {
  return new Index<I>({ name, fields: Object.freeze([...fields]) as readonly string[], unique: false, where: undefined });
}

export function uniqueIndex<I extends Model = Model>(name: string, fields: readonly FieldOf<I>[]): Index<I> {
  return index<I>(name, fields).unique();
}
