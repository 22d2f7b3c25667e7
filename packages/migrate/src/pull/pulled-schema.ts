import type { ColumnSnapshot, ForeignKeyAction, TableSnapshot } from "tempest-db-js";

/**
 * The models `pull` writes, decided once and rendered twice: as TypeScript source
 * (`renderModelSource`) and as live classes (`buildModels`), so that what the file declares is what
 * the self-check compares against the schema.
 */
export interface PulledSchema {
  readonly dialect: string;
  readonly tables: readonly PulledTable[];
}

export interface PulledTable {
  readonly table: TableSnapshot;
  readonly className: string;
  readonly naming: "snake_case" | undefined;
  readonly fields: readonly PulledField[];
  readonly indexes: readonly PulledIndex[];
}

export interface PulledField {
  readonly field: string;
  readonly column: ColumnSnapshot;
  /** `.name(...)`: the naming strategy does not give the column's name from the field. */
  readonly explicitName: boolean;
  readonly primaryKey: boolean;
  readonly fallback: PulledDefault | null;
  readonly reference: PulledReference | null;
}

export type PulledDefault =
  | { readonly kind: "value"; readonly value: PulledValue }
  | { readonly kind: "now" }
  | { readonly kind: "raw"; readonly sql: string }
  | { readonly kind: "random" };

/** A literal as the model writes it: `new Date(...)` and bigint need more than JSON. */
export type PulledValue =
  | { readonly kind: "json"; readonly value: unknown }
  | { readonly kind: "bigint"; readonly text: string }
  | { readonly kind: "date"; readonly iso: string };

export interface PulledReference {
  readonly table: string;
  /** The referenced field, or undefined for the referenced model's primary key. */
  readonly field: string | undefined;
  readonly onDelete: ForeignKeyAction | undefined;
}

export interface PulledIndex {
  readonly name: string;
  readonly fields: readonly string[];
  readonly unique: boolean;
  readonly where: PulledWhere | null;
}

/** An index predicate in the where language. */
export type PulledWhere =
  | { readonly kind: "fields"; readonly entries: readonly (readonly [string, PulledTest])[] }
  | { readonly kind: "and" | "or"; readonly items: readonly PulledWhere[] }
  | { readonly kind: "not"; readonly item: PulledWhere };

export type PulledTest =
  | { readonly kind: "eq"; readonly value: string | number | boolean }
  | { readonly kind: "ne" | "lt" | "lte" | "gt" | "gte"; readonly value: string | number | boolean }
  | { readonly kind: "in" | "notIn"; readonly values: readonly (string | number | boolean)[] }
  | { readonly kind: "isNull"; readonly isNull: boolean };

/** Something of the schema the models cannot say, or say only approximately. */
export interface PullWarning {
  readonly table: string;
  readonly message: string;
}
