import { dropTable } from "../builder/ddl.js";
import { insert } from "../builder/insert-builder.js";
import { applySchemaChange } from "../builder/schema-steps.js";
import { select } from "../builder/select.js";
import type { Engine } from "../engine/engine.js";
import { UnsupportedFeatureError } from "../errors.js";
import { column } from "../schema/column.js";
import { Model } from "../schema/model.js";
import type { ColumnSnapshot, ForeignKeySnapshot, TableSnapshot } from "../schema/schema-snapshot.js";

/** A column snapshot with every optional part empty, `extra` overriding. */
export function columnSnapshot(name: string, kind: ColumnSnapshot["kind"], extra: Partial<ColumnSnapshot> = {}): ColumnSnapshot {
  return {
    name,
    kind,
    notNull: false,
    unique: false,
    default: null,
    enumValues: null,
    length: null,
    precision: null,
    scale: null,
    generated: null,
    ...extra,
  };
}

export const PARENT = "tempest_sc_parent";
export const CHILD = "tempest_sc_child";

export const parentTable: TableSnapshot = {
  name: PARENT,
  columns: [
    columnSnapshot("id", "integer", { notNull: true }),
    columnSnapshot("code", "varchar", { notNull: true, unique: true, length: 20 }),
    columnSnapshot("label", "text"),
  ],
  primaryKey: ["id"],
  indexes: [],
  foreignKeys: [],
};

export const childParentKey: ForeignKeySnapshot & { readonly name: string } = {
  name: "tempest_sc_child_parent_fk",
  columns: ["parent_id"],
  referencedTable: PARENT,
  referencedColumns: ["id"],
  onDelete: "cascade",
};

export const childTable: TableSnapshot = {
  name: CHILD,
  columns: [
    columnSnapshot("id", "integer", { notNull: true }),
    columnSnapshot("parent_id", "integer", { notNull: true }),
    columnSnapshot("status", "enum", { notNull: true, enumValues: ["a", "b"], default: { kind: "value", value: "a" } }),
    columnSnapshot("amount", "integer"),
    columnSnapshot("note", "text"),
  ],
  primaryKey: ["id"],
  indexes: [{ name: "tempest_sc_child_by_parent", columns: ["parent_id", "id"], unique: false, where: null }],
  foreignKeys: [childParentKey],
};

/** The parent table as a model, to read and write its rows. */
export class ScParent extends Model {
  static tablename = PARENT;
  id = column.integer().primaryKey();
  code = column.varchar(20).notNull();
  label = column.text();
}

/** The child table as a model; `status` is nullable here so an insert may leave it to the database's default. */
export class ScChild extends Model {
  static tablename = CHILD;
  id = column.integer().primaryKey();
  parent_id = column.integer().notNull();
  status = column.enum("a", "b", "c");
  amount = column.integer();
  note = column.text();
}

/** Drops the scratch tables (child first) and creates both again with two parents and three children. */
export async function freshTables(engine: Engine): Promise<void> {
  await dropScratch(engine);
  await applySchemaChange(engine, { kind: "createTable", table: parentTable });
  await applySchemaChange(engine, { kind: "createTable", table: childTable });
  await engine
    .execute(
      insert(ScParent).values([
        { id: 1, code: "p1", label: "one" },
        { id: 2, code: "p2", label: null },
      ]),
    )
    .rowsAffected();
  await engine
    .execute(
      insert(ScChild).values([
        { id: 10, parent_id: 1, status: "a", amount: 5, note: "x" },
        { id: 11, parent_id: 1, status: "b", amount: null, note: null },
        { id: 12, parent_id: 2, status: "a", amount: 7, note: "it's" },
      ]),
    )
    .rowsAffected();
}

/** The child table after addColumn. */
export class ScChildAdded extends ScChild {
  extra = column.text();
  counted = column.integer();
  owner_id = column.integer();
}

/** The child table with a `code` column added UNIQUE. */
export class ScChildCode extends ScChild {
  code = column.varchar(20);
}

/** The child table with `amount` renamed to `total`. */
export class ScChildTotal extends Model {
  static tablename = CHILD;
  id = column.integer().primaryKey();
  parent_id = column.integer().notNull();
  status = column.enum("a", "b", "c");
  total = column.integer();
  note = column.text();
}

/** The child table with `amount` a bigint. */
export class ScChildBig extends Model {
  static tablename = CHILD;
  id = column.integer().primaryKey();
  parent_id = column.integer().notNull();
  amount = column.bigint();
}

/** The child table after renameTable. */
export class ScRenamed extends ScChild {
  static override tablename = `${CHILD}_renamed`;
}

export async function dropScratch(engine: Engine): Promise<void> {
  for (const model of [ScChild, ScRenamed, ScParent]) await engine.execute(dropTable(model, { ifExists: true })).rowsAffected();
}

export async function childRows(engine: Engine): Promise<unknown[]> {
  return engine.execute(select(ScChild).orderBy("id")).all();
}

/** The typed refusal a change must meet where the dialect lacks it: its dialect, the feature, a way out. */
export async function expectRefusal(engine: Engine, run: () => Promise<unknown>, feature: RegExp): Promise<UnsupportedFeatureError> {
  const error = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!UnsupportedFeatureError.isInstance(error)) throw new Error(`expected UnsupportedFeatureError, got ${String(error)}`);
  if (error.dialect !== engine.dialectName) throw new Error(`refused for ${error.dialect}, not ${engine.dialectName}`);
  if (!feature.test(error.feature)) throw new Error(`refused ${JSON.stringify(error.feature)}, expected ${feature}`);
  if (error.hint.length < 10) throw new Error(`no way out in ${JSON.stringify(error.hint)}`);
  return error;
}
