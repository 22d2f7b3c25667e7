import type { SchemaChange, SchemaStep } from "../ast/schema-change-node.js";
import { isSchemaStep } from "../ast/schema-change-node.js";
import { rawStatementNode } from "../ast/statement-node.js";
import { rawNode } from "../ast/value-node.js";
import type { Executor } from "../engine/executor.js";
import { queryErrorClass, ValidationError } from "../errors.js";
import type { Executable } from "./executable.js";
import { markExecutable } from "./executable.js";

/**
 * The statements a schema change compiles to on this executor's database (after the engine has read
 * the server's version, which decides e.g. MariaDB's ALGORITHM clauses). Each step says whether it
 * may run inside a transaction.
 */
export function schemaSteps(executor: Executor, change: SchemaChange): Promise<readonly SchemaStep[]> {
  return executor.schemaSteps(change);
}

/** A compiled step as a statement for `execute()` / `compile()`: its text as the compiler wrote it. */
export function schemaStepStatement(step: SchemaStep): Executable<Record<string, unknown>> {
  if (!isSchemaStep(step)) {
    throw new ValidationError("schemaStepStatement takes a step made by schemaSteps(); run SQL you wrote yourself with sql.raw");
  }
  const node = rawStatementNode(rawNode(step.sql));
  const executable = { toNode: () => node };
  markExecutable(executable);
  return executable as Executable<Record<string, unknown>>;
}

/**
 * Runs one step on the engine, a session or a transaction, with the usual query events and error
 * wrapping. A check step (`failsOnRows`) that returns rows throws: a ConstraintViolationError
 * (kind "foreign-key-violation") listing what the check found. Which steps run in a transaction is
 * the caller's choice (see `applySchemaSteps`).
 */
export async function runSchemaStep(executor: Executor, step: SchemaStep): Promise<void> {
  const result = executor.execute(schemaStepStatement(step));
  if (step.replays) {
    for (const row of await result.all()) await executor.execute(savedStatement(row)).rowsAffected();
    return;
  }
  if (!step.failsOnRows) {
    await result.rowsAffected();
    return;
  }
  const rows = await result.all();
  if (rows.length === 0) return;
  const problem = rows.every((row) => typeof row.problem === "string") ? String(rows[0]?.problem) : undefined;
  const kind = problem === undefined ? "foreign-key-violation" : "other";
  const ErrorClass = queryErrorClass(kind);
  // The rows of a foreign key check name tables, rowids and constraint numbers, never a column's value.
  const found = problem ?? `${rows.length} foreign key violation(s): ${JSON.stringify(rows.slice(0, 5), jsonSafe)}`;
  throw new ErrorClass({
    message: `${executor.dialectName}: ${found}`,
    sql: step.sql,
    params: [],
    kind,
    cause: undefined,
  });
}

/** A statement a `replays` step read back from the database's own schema (see SchemaStep.replays). */
function savedStatement(row: Record<string, unknown>): Executable<Record<string, unknown>> {
  if (typeof row.sql !== "string") throw new ValidationError("a replayed step's rows hold the statements to run in a text column `sql`");
  const node = rawStatementNode(rawNode(row.sql));
  const executable = { toNode: () => node };
  markExecutable(executable);
  return executable as Executable<Record<string, unknown>>;
}

/**
 * Runs the steps of one change (or of several, in order): each run of transactional steps in one
 * transaction, the other steps on their own, and the steps that restore a setting (`restores`)
 * last, even after a failure. Refused inside a transaction when a step must run outside one.
 */
export async function applySchemaSteps(executor: Executor, steps: readonly SchemaStep[]): Promise<void> {
  const inTransaction = "depth" in executor;
  if (inTransaction) {
    const outside = steps.find((step) => !step.transactional);
    if (outside) {
      throw new ValidationError(
        `${executor.dialectName}: ${JSON.stringify(outside.sql.slice(0, 60))} must run outside a transaction; apply these steps on the engine`,
      );
    }
  }
  const main = steps.filter((step) => !step.restores);
  let failure: unknown;
  try {
    for (let i = 0; i < main.length; ) {
      const step = main[i] as SchemaStep;
      if (!step.transactional || inTransaction) {
        await runSchemaStep(executor, step);
        i++;
        continue;
      }
      let end = i;
      while (end < main.length && (main[end] as SchemaStep).transactional) end++;
      const run = main.slice(i, end);
      await executor.transaction(async (tx) => {
        for (const each of run) await runSchemaStep(tx, each);
      });
      i = end;
    }
  } catch (error) {
    failure = error;
  }
  // The restoring steps run whatever happened; when a step had already failed, its error is the one thrown.
  for (const step of steps) {
    if (!step.restores) continue;
    try {
      await runSchemaStep(executor, step);
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}

/** Compiles a change for the executor's database and applies its steps (see applySchemaSteps). */
export async function applySchemaChange(executor: Executor, change: SchemaChange): Promise<void> {
  await applySchemaSteps(executor, await executor.schemaSteps(change));
}

function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}
