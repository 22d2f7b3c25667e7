import type {
  AlterColumnChange,
  CreateIndexChange,
  DropForeignKeyChange,
  DropIndexChange,
  DropTableChange,
  RebuildTableChange,
  SchemaChange,
  SchemaStep,
  SchemaStepFlags,
} from "../ast/schema-change-node.js";
import { schemaStep } from "../ast/schema-change-node.js";
import { textProblem } from "../codec/check-text.js";
import { ValidationError } from "../errors.js";
import type { TableSnapshot } from "../schema/schema-snapshot.js";
import type { ColumnDefinition } from "./column-definition.js";
import { columnDefinition } from "./column-definition.js";
import { exhaustive } from "./compiler-base.js";
import { DdlCompiler } from "./ddl-compiler.js";

const REBUILD_HINT =
  "Rebuild the table instead: a rebuildTable change (the migration planner plans one where this dialect lacks the ALTER).";

/**
 * The fourth layer of the compiler: schema changes (migrations) into the statements that make them,
 * each marked with whether it may run inside a transaction. Written in standard SQL (PostgreSQL's
 * spelling where the standard has none); a dialect overrides the hooks where it differs and states
 * in its capabilities which ALTERs it has, so a change it lacks is refused by name.
 */
export abstract class SchemaChangeCompiler extends DdlCompiler {
  /** The statements `change` compiles to, in order. */
  schemaSteps(change: SchemaChange): readonly SchemaStep[] {
    const steps = this.changeSteps(change);
    for (const step of steps) {
      const problem = textProblem(step.sql, false);
      if (problem) throw new ValidationError(`The SQL text of a ${change.kind} change ${problem}: a name or default put it there.`);
    }
    return Object.freeze(steps);
  }

  protected changeSteps(change: SchemaChange): SchemaStep[] {
    const q = (name: string) => this.quoteIdentifier(name);
    const caps = this.capabilities;
    switch (change.kind) {
      case "createTable": {
        const { table } = change;
        const index = (i: TableSnapshot["indexes"][number]) =>
          this.createIndexSql(table.name, i, { ifNotExists: false, concurrently: false });
        return [this.ddlStep(change, this.createTableSql(table, false)), ...table.indexes.map((i) => this.ddlStep(change, index(i)))];
      }
      case "dropTable":
        return this.dropTableSteps(change);
      case "renameTable":
        if (!caps.renameTable) this.unsupported("renaming a table", "Create the new table, copy the rows and drop the old one.");
        return [this.ddlStep(change, this.renameTableSql(change.from, change.to))];
      case "addColumn": {
        const added = { column: change.column, foreignKey: change.foreignKey, keyed: change.keyed ?? false };
        return [this.ddlStep(change, this.addColumnSql(change.table, added))];
      }
      case "dropColumn":
        if (!caps.dropColumn) this.unsupported(`dropping a column (${change.table}.${change.column.name})`, REBUILD_HINT);
        return [this.ddlStep(change, `ALTER TABLE ${q(change.table)} DROP COLUMN ${q(change.column.name)}`)];
      case "renameColumn":
        if (!caps.renameColumn) this.unsupported(`renaming a column (${change.table}.${change.from})`, REBUILD_HINT);
        return [this.ddlStep(change, `ALTER TABLE ${q(change.table)} RENAME COLUMN ${q(change.from)} TO ${q(change.to)}`)];
      case "alterColumn":
        if (!caps.alterColumn) this.unsupported(`changing a column in place (${change.table}.${change.from.name})`, REBUILD_HINT);
        if (change.from.name !== change.to.name) {
          throw new ValidationError(`alterColumn ${change.table}.${change.from.name}: a rename is its own change (renameColumn)`);
        }
        return this.alterColumnSteps(change);
      case "createIndex":
        this.checkConcurrently(change);
        return [
          this.ddlStep(change, this.createIndexSql(change.table, change.index, { ifNotExists: false, concurrently: change.concurrently }), {
            transactional: !change.concurrently,
          }),
        ];
      case "dropIndex":
        this.checkConcurrently(change);
        return [this.ddlStep(change, this.dropIndexSql(change), { transactional: !change.concurrently })];
      case "addForeignKey": {
        this.checkConstraints(change.kind, change.table, change.notValid);
        const sql = `ALTER TABLE ${q(change.table)} ADD ${this.foreignKeySql(change.foreignKey)}${change.notValid ? " NOT VALID" : ""}`;
        return [this.ddlStep(change, sql)];
      }
      case "dropForeignKey":
        this.checkConstraints(change.kind, change.table, false);
        return [this.ddlStep(change, this.dropForeignKeySql(change))];
      case "addCheck": {
        this.checkConstraints(change.kind, change.table, change.notValid);
        const check = `CHECK (${q(change.notNullOf)} IS NOT NULL)${change.notValid ? " NOT VALID" : ""}`;
        return [this.ddlStep(change, `ALTER TABLE ${q(change.table)} ADD CONSTRAINT ${q(change.name)} ${check}`)];
      }
      case "dropCheck":
        this.checkConstraints(change.kind, change.table, false);
        return [this.ddlStep(change, this.dropCheckSql(change.table, change.name))];
      case "validateConstraint":
        this.checkConstraints(change.kind, change.table, true);
        // Outside a transaction: VALIDATE itself takes only SHARE UPDATE EXCLUSIVE (writes go on), but
        // inside the migration's transaction it would scan while the ADD ... NOT VALID before it
        // still held its heavier lock — the queue then stalls for the whole scan (bench: migration-locks).
        return [this.ddlStep(change, `ALTER TABLE ${q(change.table)} VALIDATE CONSTRAINT ${q(change.name)}`, { transactional: false })];
      case "addUniqueConstraint": {
        if (!caps.concurrentIndexes) {
          this.unsupported(
            `a UNIQUE constraint built from a concurrent index (${change.table}.${change.column.name})`,
            "Alter the column to unique: true instead (alterColumn): this database builds the constraint's index its own way.",
          );
        }
        const index = { name: change.name, columns: [change.column.name], unique: true, where: null };
        const build = this.createIndexSql(change.table, index, { ifNotExists: false, concurrently: true });
        const attach = `ALTER TABLE ${q(change.table)} ADD CONSTRAINT ${q(change.name)} UNIQUE USING INDEX ${q(change.name)}`;
        return [this.ddlStep(change, build, { transactional: false }), this.ddlStep(change, attach)];
      }
      case "rebuildTable":
        if (!caps.tableRebuild) {
          this.unsupported(
            `rebuilding a table (${change.before.name})`,
            "This dialect changes tables in place: plan alterColumn, addForeignKey and the other ALTER changes instead.",
          );
        }
        return this.rebuildSteps(change);
      default:
        return exhaustive(change);
    }
  }

  /**
   * A statement of `change` as a step. Runs inside the migration's transaction where the dialect's DDL
   * is transactional (`flags.transactional` false keeps it out). MySQL appends its ALGORITHM clause here.
   */
  protected ddlStep(_change: SchemaChange, sql: string, flags: SchemaStepFlags & { transactional?: boolean } = {}): SchemaStep {
    const transactional = (flags.transactional ?? true) && this.capabilities.transactionalDdl;
    return schemaStep(sql, transactional, flags);
  }

  protected checkConcurrently(change: CreateIndexChange | DropIndexChange): void {
    if (change.concurrently && !this.capabilities.concurrentIndexes) {
      this.unsupported(
        `${change.kind === "createIndex" ? "CREATE" : "DROP"} INDEX CONCURRENTLY (${change.index.name})`,
        "Plan the index change without concurrently: this database builds indexes without blocking writes its own way, or not at all.",
      );
    }
  }

  protected checkConstraints(kind: SchemaChange["kind"], table: string, notValid: boolean): void {
    if (!this.capabilities.alterConstraints) this.unsupported(`${kind} on an existing table (${table})`, REBUILD_HINT);
    if (notValid && !this.capabilities.notValidConstraints) {
      this.unsupported(
        `NOT VALID constraints and VALIDATE CONSTRAINT (${kind} on ${table})`,
        "Add the constraint valid (notValid: false): the database checks the existing rows as it adds it.",
      );
    }
  }

  /**
   * DROP TABLE. SQLite runs it with foreign keys off (see its compiler): there, with them on, DROP TABLE
   * first deletes every row, which cascades into the tables that reference it.
   */
  protected dropTableSteps(change: DropTableChange): SchemaStep[] {
    return [this.ddlStep(change, `DROP TABLE ${this.quoteIdentifier(change.table.name)}`)];
  }

  protected renameTableSql(from: string, to: string): string {
    return `ALTER TABLE ${this.quoteIdentifier(from)} RENAME TO ${this.quoteIdentifier(to)}`;
  }

  protected dropIndexSql(change: DropIndexChange): string {
    return `DROP INDEX ${change.concurrently ? "CONCURRENTLY " : ""}${this.quoteIdentifier(change.index.name)}`;
  }

  protected dropForeignKeySql(change: DropForeignKeyChange): string {
    return `ALTER TABLE ${this.quoteIdentifier(change.table)} DROP CONSTRAINT ${this.quoteIdentifier(change.foreignKey.name)}`;
  }

  protected dropCheckSql(table: string, name: string): string {
    return `ALTER TABLE ${this.quoteIdentifier(table)} DROP CONSTRAINT ${this.quoteIdentifier(name)}`;
  }

  // ---- alter column -----------------------------------------------------------------------
  /** The name the database gives the CHECK of an enum column created without one (PostgreSQL: `table_column_check`). */
  protected enumCheckName(table: string, column: string): string {
    return `${table}_${column}_check`;
  }

  /** The name the database gives a column's UNIQUE constraint created without one (PostgreSQL: `table_column_key`). */
  protected uniqueConstraintName(table: string, column: string): string {
    return `${table}_${column}_key`;
  }

  /** `ALTER COLUMN ... TYPE`, converting the stored values (`USING`) when the kind changes. */
  protected alterTypeSql(column: string, to: ColumnDefinition, kindChanged: boolean): string {
    const type = this.columnType(to);
    return `ALTER COLUMN ${column} TYPE ${type}${kindChanged ? ` USING ${column}::${this.castTypeSql(to)}` : ""}`;
  }

  /** The type to cast stored values to when a column's kind changes (the column type without its collation). */
  protected castTypeSql(column: ColumnDefinition): string {
    return this.columnType(column);
  }

  /** The column before (`from`) or after (`to`) the change, keyed as the table is then. */
  protected alterDefinition(change: AlterColumnChange, side: "from" | "to"): ColumnDefinition {
    const keyed = side === "from" ? (change.keyedBefore ?? change.keyed) : change.keyed;
    return columnDefinition(change.table, change[side], false, keyed ?? false);
  }

  /**
   * The column's type, nullability, default, enum values and UNIQUE, in one ALTER TABLE; an enum's new
   * CHECK is added NOT VALID and validated in a second step where the dialect can (a scan that does
   * not block writes), so no step holds the table's strongest lock while it reads every row.
   */
  protected alterColumnSteps(change: AlterColumnChange): SchemaStep[] {
    const { from, to, table } = change;
    if (from.generated !== null || to.generated !== null) {
      if (JSON.stringify(from.generated) !== JSON.stringify(to.generated)) {
        this.unsupported(`changing a generated column (${table}.${to.name})`, "Drop the column and add it again.");
      }
    }
    const q = (name: string) => this.quoteIdentifier(name);
    const column = q(to.name);
    const before = this.alterDefinition(change, "from");
    const after = this.alterDefinition(change, "to");
    const actions: string[] = [];
    const steps: SchemaStep[] = [];
    const typeChanged = this.columnType(before) !== this.columnType(after);
    const enumChanged =
      from.kind === "enum" || to.kind === "enum" ? JSON.stringify(from.enumValues) !== JSON.stringify(to.enumValues) : false;
    const defaultChanged = JSON.stringify(from.default) !== JSON.stringify(to.default);
    const oldCheck = this.columnCheckSql(before);
    const newCheck = this.columnCheckSql(after);
    const checkName = q(this.enumCheckName(table, to.name));
    const checkChanged = (oldCheck !== newCheck || enumChanged) && (oldCheck !== undefined || newCheck !== undefined);
    if (checkChanged && oldCheck) actions.push(`DROP CONSTRAINT ${checkName}`);
    if (defaultChanged && from.default !== null) actions.push(`ALTER COLUMN ${column} DROP DEFAULT`);
    if (typeChanged) actions.push(this.alterTypeSql(column, after, from.kind !== to.kind));
    if (defaultChanged && to.default !== null) {
      const fallback = this.defaultSql(to, after);
      if (fallback !== undefined) actions.push(`ALTER COLUMN ${column} SET DEFAULT ${fallback}`);
    }
    if (from.notNull !== to.notNull) actions.push(`ALTER COLUMN ${column} ${to.notNull ? "SET" : "DROP"} NOT NULL`);
    const validateLater = this.capabilities.notValidConstraints;
    if (checkChanged && newCheck) actions.push(`ADD CONSTRAINT ${checkName} ${newCheck}${validateLater ? " NOT VALID" : ""}`);
    if (from.unique !== to.unique) {
      actions.push(to.unique ? `ADD UNIQUE (${column})` : `DROP CONSTRAINT ${q(this.uniqueConstraintName(table, to.name))}`);
    }
    if (actions.length > 0) steps.push(this.ddlStep(change, `ALTER TABLE ${q(table)} ${actions.join(", ")}`));
    if (checkChanged && newCheck && validateLater)
      steps.push(this.ddlStep(change, `ALTER TABLE ${q(table)} VALIDATE CONSTRAINT ${checkName}`));
    return steps;
  }

  // ---- SQLite's table rebuild -------------------------------------------------------------
  /** Statements run before a rebuild, outside its transaction (SQLite: `PRAGMA foreign_keys = OFF`). */
  protected rebuildPrologueSql(): readonly string[] {
    return [];
  }

  /**
   * A query run first inside the rebuild's transaction that returns a row when the prologue did not
   * take effect (it ran inside a transaction, where SQLite ignores it): dropping the old table would
   * then delete or cascade to the rows that reference it.
   */
  protected rebuildGuardSql(): string | undefined {
    return undefined;
  }

  /** A query returning one row per foreign key violation, run inside the rebuild's transaction (`PRAGMA foreign_key_check`). */
  protected foreignKeyCheckSql(): string | undefined {
    return undefined;
  }

  /** Statements run after a rebuild, outside its transaction, even when it failed (`PRAGMA foreign_keys = ON`). */
  protected rebuildEpilogueSql(): readonly string[] {
    return [];
  }

  /**
   * What the rebuild keeps that DROP TABLE takes with it and no snapshot holds (SQLite: the table's
   * triggers): `save` runs before the old table is dropped, `replay` after the new one has its name and
   * indexes (a query whose rows are the statements to run again: see SchemaStep.replays), `discard`
   * last. Undefined: nothing to keep.
   */
  protected rebuildKeepSql(_table: string): { save: readonly string[]; replay: string; discard: readonly string[] } | undefined {
    return undefined;
  }

  /** The rename that gives the new table the old one's name (SQLite: with the views and triggers that name it left alone). */
  protected rebuildRenameSql(from: string, to: string): readonly string[] {
    return [this.renameTableSql(from, to)];
  }

  /**
   * SQLite's documented procedure (https://www.sqlite.org/lang_altertable.html#otheralter): a new
   * table shaped as `after`, the rows copied, the old table dropped and the new one renamed (in this
   * order, so references from other tables keep naming the table), the indexes made again, and the
   * foreign keys checked before commit.
   */
  protected rebuildSteps(change: RebuildTableChange): SchemaStep[] {
    const { before, after, columnMap } = change;
    const q = (name: string) => this.quoteIdentifier(name);
    const targets: string[] = [];
    const sources: string[] = [];
    for (const [target, source] of Object.entries(columnMap)) {
      const column = after.columns.find((c) => c.name === target);
      if (!column) {
        throw new ValidationError(`rebuildTable ${after.name}: columnMap names ${JSON.stringify(target)}, which the new table lacks`);
      }
      // A generated column computes its own value; a null source takes the column's default.
      if (source === null || column.generated !== null) continue;
      if (!before.columns.some((c) => c.name === source)) {
        throw new ValidationError(`rebuildTable ${before.name}: columnMap copies ${JSON.stringify(source)}, which the old table lacks`);
      }
      targets.push(q(target));
      sources.push(q(source));
    }
    const temporary = `${after.name}__tempest_rebuild`;
    const steps = this.rebuildPrologueSql().map((sql) => this.ddlStep(change, sql, { transactional: false }));
    const guard = this.rebuildGuardSql();
    if (guard) steps.push(this.ddlStep(change, guard, { failsOnRows: true }));
    const keep = this.rebuildKeepSql(before.name);
    for (const sql of keep?.save ?? []) steps.push(this.ddlStep(change, sql));
    steps.push(this.ddlStep(change, this.createTableSql(after, false, temporary)));
    if (targets.length > 0) {
      steps.push(
        this.ddlStep(change, `INSERT INTO ${q(temporary)} (${targets.join(", ")}) SELECT ${sources.join(", ")} FROM ${q(before.name)}`),
      );
    }
    steps.push(this.ddlStep(change, `DROP TABLE ${q(before.name)}`));
    for (const sql of this.rebuildRenameSql(temporary, after.name)) steps.push(this.ddlStep(change, sql));
    for (const index of after.indexes) {
      steps.push(this.ddlStep(change, this.createIndexSql(after.name, index, { ifNotExists: false, concurrently: false })));
    }
    if (keep) {
      steps.push(this.ddlStep(change, keep.replay, { replays: true }));
      for (const sql of keep.discard) steps.push(this.ddlStep(change, sql));
    }
    const check = this.foreignKeyCheckSql();
    if (check) steps.push(this.ddlStep(change, check, { failsOnRows: true }));
    for (const sql of this.rebuildEpilogueSql()) steps.push(this.ddlStep(change, sql, { transactional: false, restores: true }));
    return steps;
  }
}
