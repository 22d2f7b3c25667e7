import type { ModelClass } from "tempest-db-js";
import { column, index, Model, uniqueIndex } from "tempest-db-js";

/**
 * The generate-scale schema, as data: `n` tables of the same realistic shape, each one's parent a
 * table before it (a tree of foreign keys), every third with a partial unique index. Both the
 * tempest models and the drizzle pg-core source are made from this, so the two describe one schema.
 */
export interface ScaleTable {
  readonly name: string;
  /** The table `parent_id` references, or null (the first table). */
  readonly parent: string | null;
  /** A partial unique index on `code` where `deleted_at IS NULL`. */
  readonly liveCodeUnique: boolean;
  /** The one-column change: a `note text` column added. */
  readonly addsNote: boolean;
}

export const SCALE_PREFIX = "gs_t";

export const STATUSES = ["draft", "active", "archived"] as const;

function tableName(i: number): string {
  return `${SCALE_PREFIX}${String(i).padStart(3, "0")}`;
}

/** The tables the change touches: the second, the middle one and the last. */
export function changedTables(n: number): readonly number[] {
  return [...new Set([1, Math.floor(n / 2), n - 1])];
}

export function scaleTables(n: number, changed: boolean): readonly ScaleTable[] {
  const touched = new Set(changed ? changedTables(n) : []);
  return Array.from({ length: n }, (_, i) => ({
    name: tableName(i),
    parent: i === 0 ? null : tableName(Math.floor((i - 1) / 2)),
    liveCodeUnique: i % 3 === 0,
    addsNote: touched.has(i),
  }));
}

/**
 * One model per table, in dependency order (a parent before its children, as createAll wants).
 * The classes are made at run time, so their fields are set in the constructor, which is what the
 * model reader sees (it reads an instance's own properties).
 */
export function scaleModels(n: number, changed: boolean): readonly ModelClass[] {
  const byName = new Map<string, ModelClass>();
  for (const t of scaleTables(n, changed)) {
    const parent = t.parent === null ? undefined : byName.get(t.parent);
    class ScaleRow extends Model {
      static tablename = t.name;
      static naming = "snake_case";
      static indexes = [
        index(`${t.name}_created_at_idx`, ["createdAt"]),
        index(`${t.name}_parent_status_idx`, ["parentId", "status"]),
        ...(t.liveCodeUnique ? [uniqueIndex<any>(`${t.name}_live_code_key`, ["code"]).where({ deletedAt: null })] : []),
      ];
      constructor() {
        super();
        Object.assign(this, {
          id: column.integer().primaryKey(),
          parentId: parent ? column.integer().references(() => parent) : column.integer(),
          code: column.varchar(64).notNull(),
          title: column.text(),
          status: column
            .enum(...STATUSES)
            .notNull()
            .default("draft"),
          amount: column.numeric(12, 2),
          active: column.boolean().notNull().default(true),
          payload: column.json(),
          createdAt: column.datetime().notNull(),
          deletedAt: column.datetime(),
          ...(t.addsNote ? { note: column.text() } : {}),
        });
      }
    }
    Object.defineProperty(ScaleRow, "name", { value: `ScaleRow_${t.name}` });
    byName.set(t.name, ScaleRow as unknown as ModelClass);
  }
  return [...byName.values()];
}
