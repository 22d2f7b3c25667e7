import type { ConditionNode } from "../ast/condition-node.js";
import type { ColumnMeta } from "./column-meta.js";

/** An index declared on a model, resolved against its columns. */
export interface IndexMeta {
  readonly name: string;
  readonly columns: readonly ColumnMeta[];
  readonly unique: boolean;
  /** The predicate of a partial index, in the where language. */
  readonly where: ConditionNode | undefined;
}
