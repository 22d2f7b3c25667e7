import { randomBytes } from "node:crypto";
import { enqueue, ensureQueueSchema } from "@tempest-db-js/queue-recipes";
import type { Engine } from "tempest-db-js";
import { dropTable, select } from "tempest-db-js";
import { jobModel } from "../../src/models.js";

export type JobModel = ReturnType<typeof jobModel>;

/** A queue table of its own (random name), with the recipes' indexes, holding `count` due jobs. */
export async function freshQueue(engine: Engine, name: string, count: number): Promise<JobModel> {
  const Job = jobModel(`chaos_${name}_${randomBytes(3).toString("hex")}`);
  await ensureQueueSchema(engine, Job);
  for (let i = 0; i < count; i += 2000) {
    await enqueue(
      engine,
      Job,
      Array.from({ length: Math.min(2000, count - i) }, (_, j) => ({ consumer: "c", idempotencyKey: `k${i + j}` })),
      { notify: false },
    );
  }
  return Job;
}

export async function dropQueue(engine: Engine, Job: JobModel | undefined): Promise<void> {
  if (Job) await engine.execute(dropTable(Job, { ifExists: true })).rowsAffected();
}

export async function statusCounts(engine: Engine, Job: JobModel): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const row of await engine.execute(select(Job, ["status"])).all()) out[row.status] = (out[row.status] ?? 0) + 1;
  return out;
}

/**
 * At least once, and nothing invented: every job was delivered, and no job more often than it was
 * claimed (a claim whose reply or settlement was lost to a fault is delivered again after its lease).
 */
export async function deliveryProblems(engine: Engine, Job: JobModel, deliveries: ReadonlyMap<string, number>): Promise<string[]> {
  const problems: string[] = [];
  for (const row of await engine.execute(select(Job, ["id", "attempts", "status"])).all()) {
    const n = deliveries.get(row.id) ?? 0;
    if (n < 1) problems.push(`${row.id} (${row.status}) never delivered`);
    if (n > row.attempts) problems.push(`${row.id} delivered ${n} times in ${row.attempts} claims`);
  }
  return problems;
}

/** Bounded wait for a condition; false when the bound passes. */
export async function eventually(condition: () => boolean | Promise<boolean>, limitMs: number, stepMs = 50): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  return condition();
}
