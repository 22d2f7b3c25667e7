import type { ConditionNode } from "../ast/condition-node.js";
import type { ColumnMeta } from "./column-meta.js";

/**
 * An index as the model declares it, its fields resolved to columns. The predicate of a partial index
 * stays as declared (the where language): resolving it needs the where resolver of the builders, which
 * themselves read models, so it is resolved where indexes are built (`createIndexes`, `createTable`, the
 * model's snapshot), into an `IndexMeta`.
 */
export interface IndexDeclaration {
  readonly name: string;
  readonly columns: readonly ColumnMeta[];
  readonly unique: boolean;
  /** The predicate of a partial index as declared (`index(...).where({...})`), undefined for a full index. */
  readonly where: unknown;
}

/** An index declared on a model, resolved against its columns: what CREATE INDEX compiles. */
export interface IndexMeta {
  readonly name: string;
  readonly columns: readonly ColumnMeta[];
  readonly unique: boolean;
  /** The predicate of a partial index, in the where language. */
  readonly where: ConditionNode | undefined;
}
