import type { Executor, ModelClass, TableDescriptionRow } from "tempest-db-js";
import { column, createTable, describeTable, Model, tableMeta, UnsupportedFeatureError, ValidationError } from "tempest-db-js";
import { MAX_NAME_LENGTH } from "./schedule.js";

export interface ScheduleTableOptions {
  /** The table holding each schedule's last handled tick (default `<queue table>_schedules`). */
  readonly scheduleTable?: string;
}

function stateModel(tablename: string) {
  return class ScheduleState extends Model {
    static tablename = tablename;
    static naming = "snake_case";

    name = column.varchar(MAX_NAME_LENGTH).primaryKey();
    /** Every tick up to this time was enqueued or dropped by the missed-tick policy; null until the first pass. */
    lastTickAt = column.datetime();
    updatedAt = column.datetime();
  };
}

export type ScheduleStateModel = ReturnType<typeof stateModel>;

const models = new Map<string, ScheduleStateModel>();

/**
 * The model of the schedules table that goes with a queue model: one row per schedule name. Give it
 * to your migrations if they create tables; `ensureScheduleSchema` creates it otherwise.
 */
export function scheduleModel(model: ModelClass<any>, options: ScheduleTableOptions = {}): ScheduleStateModel {
  const name = options.scheduleTable ?? `${tableMeta(model).name}_schedules`;
  if (typeof name !== "string" || name.length === 0) throw new ValidationError("scheduleTable must be a non-empty table name");
  let found = models.get(name);
  if (!found) models.set(name, (found = stateModel(name)));
  return found;
}

/** CREATE TABLE IF NOT EXISTS for the schedules table of a queue model. */
export async function ensureScheduleSchema(db: Executor, model: ModelClass<any>, options: ScheduleTableOptions = {}): Promise<void> {
  await db.execute(createTable(scheduleModel(model, options), { ifNotExists: true })).rowsAffected();
}

/**
 * Refuses, with the DDL to run, a schedules table that does not exist: a loop would otherwise report
 * the same error on every pass. A dialect without a catalog query is not checked.
 */
export async function assertScheduleTable(db: Executor, state: ScheduleStateModel): Promise<void> {
  let rows: TableDescriptionRow[];
  try {
    rows = (await db.execute(describeTable(state)).all()) as TableDescriptionRow[];
  } catch (error) {
    if (UnsupportedFeatureError.isInstance(error)) return;
    throw error;
  }
  if (rows.length > 0) return;
  throw new ValidationError(
    `schedules: the table ${state.tablename} does not exist. Create it with ensureScheduleSchema(db, Model), or run: ${db.compile(createTable(state)).sql}`,
  );
}
