import type { Executor } from "tempest-db-js";
import { column, createTable, deleteFrom, describeTable, insert, Model, select } from "tempest-db-js";

/** One row of the history table: a migration that was applied, or that failed part way. */
class MigrationRecord extends Model {
  static tablename = "tempest_migrations";
  static naming = "snake_case" as const;

  name = column.varchar(255).primaryKey();
  /** The file's checksum when it ran (see migrationChecksum). */
  checksum = column.varchar(64).notNull();
  /** "failed": some statements took effect (MySQL DDL, a concurrent step) and a later one failed. */
  status = column.enum("applied", "running", "failed").notNull();
  /** Which way the migration was going when it stopped ("down": reverting it failed part way). */
  direction = column.enum("up", "down").notNull();
  /** Statements and data steps that took effect, in file order: where a resumed run goes on from. */
  stepsDone = column.integer().notNull();
  stepsTotal = column.integer().notNull();
  appliedAt = column.datetime().notNull();
  /** The first line of the failure, for a failed migration. */
  error = column.text();
}

export interface HistoryRow {
  readonly name: string;
  readonly checksum: string;
  /** "running": the run that wrote it is still going, or stopped without a word (the process died). */
  readonly status: "applied" | "running" | "failed";
  readonly direction: "up" | "down";
  readonly stepsDone: number;
  readonly stepsTotal: number;
  readonly appliedAt: Date;
  readonly error: string | null;
}

const models = new Map<string, typeof MigrationRecord>([[MigrationRecord.tablename, MigrationRecord]]);

function historyModel(table: string): typeof MigrationRecord {
  let model = models.get(table);
  if (!model) {
    model = class extends MigrationRecord {
      static override tablename = table;
    };
    models.set(table, model);
  }
  return model;
}

/** The history table of one database, under the name the runner was given. */
export class HistoryTable {
  readonly #model: typeof MigrationRecord;

  constructor(readonly name: string = MigrationRecord.tablename) {
    this.#model = historyModel(name);
  }

  async ensure(db: Executor): Promise<void> {
    await db.execute(createTable(this.#model, { ifNotExists: true })).rowsAffected();
  }

  /** Every row, in name order (the order migrations apply in). */
  async exists(db: Executor): Promise<boolean> {
    return (await db.execute(describeTable(this.#model)).all()).length > 0;
  }

  async read(db: Executor): Promise<HistoryRow[]> {
    const rows = await db.execute(select(this.#model).orderBy("name")).all();
    return rows.map((r) => ({ ...r, stepsDone: Number(r.stepsDone), stepsTotal: Number(r.stepsTotal), error: r.error ?? null }));
  }

  async find(db: Executor, name: string): Promise<HistoryRow | undefined> {
    const rows = await db.execute(select(this.#model).where({ name })).all();
    return rows.length === 0 ? undefined : { ...(rows[0] as HistoryRow), error: rows[0]?.error ?? null };
  }

  /** Writes the migration's row (replacing one left by an earlier, failed run). */
  async record(db: Executor, row: HistoryRow): Promise<void> {
    await this.remove(db, row.name);
    await db.execute(insert(this.#model).values({ ...row })).rowsAffected();
  }

  async remove(db: Executor, name: string): Promise<void> {
    await db.execute(deleteFrom(this.#model).where({ name })).rowsAffected();
  }
}
