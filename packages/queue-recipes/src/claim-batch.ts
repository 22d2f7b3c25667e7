import type { Executor, ForUpdateOptions, InferModel, ModelClass } from "tempest-db-js";
import { op, select, sql, UnsupportedFeatureError, update, ValidationError } from "tempest-db-js";
import { dueCondition } from "./due-condition.js";
import { plusOne } from "./per-claim.js";
import type { QueueOptions } from "./queue-options.js";
import type { QueueTable } from "./queue-table.js";
import { queueTable } from "./queue-table.js";
import { retryStatement } from "./retry-statement.js";
import { runClaimTransaction } from "./run-claim-transaction.js";
import { cachedStatement } from "./statement-cache.js";
import { valueKind } from "./value-kind.js";

export interface ClaimOptions extends QueueOptions {
  /** Most rows to claim (the claim never returns more). */
  readonly size: number;
  /** Only claim messages of these consumers. */
  readonly consumer?: string | readonly string[];
}

/**
 * How a claim is carried out on a dialect, chosen from its capabilities:
 * - `single`: one `UPDATE ... WHERE id IN (SELECT ... LIMIT n [FOR UPDATE SKIP LOCKED]) RETURNING *`;
 * - `two-step`: in a transaction, select the ids (locked where rows can be locked), then update them.
 * Each runs inside a transaction when the dialect serializes writers instead of locking rows, so
 * that the read and the write cannot interleave with another writer's.
 */
export interface ClaimPlan {
  readonly strategy: "single" | "two-step";
  /** The lock the id SELECT takes, or undefined where writers are serialized instead. */
  readonly lock: ForUpdateOptions | undefined;
  /** The claim runs in an explicit transaction (always for `two-step`). */
  readonly transaction: boolean;
  /** RETURNING on the UPDATE; otherwise the claimed rows are read back by id. */
  readonly returning: boolean;
}

export function claimPlan(db: Pick<Executor, "capabilities" | "dialectName">): ClaimPlan {
  const caps = db.capabilities;
  if (!caps.rowLocks && !caps.serializedWrites) {
    throw new UnsupportedFeatureError(
      db.dialectName,
      "a safe claim (neither row locks nor serialized writes)",
      "The queue recipes need SELECT ... FOR UPDATE or a database whose write transactions exclude each other.",
    );
  }
  const lock = caps.rowLocks ? (caps.skipLocked ? { skipLocked: true } : {}) : undefined;
  const single = caps.limitInSubquery && caps.returningUpdate;
  return { strategy: single ? "single" : "two-step", lock, transaction: !single || !caps.rowLocks, returning: caps.returningUpdate };
}

/**
 * Claims up to `size` due messages, oldest first: sets them `sending`, adds one to the fence in SQL
 * (`claimToken` where the model has it, otherwise `attempts`) and stamps `updatedAt` with the
 * database clock. Concurrent callers — other connections or processes — get disjoint batches. The
 * returned rows carry the new fence value, the claim's token for `markSent` / `requeue` /
 * `markFailed` / `extendLease`.
 */
export async function claimBatch<M extends ModelClass<any>>(db: Executor, model: M, options: ClaimOptions): Promise<InferModel<M>[]> {
  const size = options.size;
  if (!Number.isSafeInteger(size) || size < 1)
    throw new ValidationError(`claimBatch: size must be a positive integer, got ${valueKind(size)}`);
  const q = queueTable(model, options);
  const plan = claimPlan(db);
  const rows =
    plan.strategy === "single"
      ? plan.transaction
        ? await runClaimTransaction(db, (tx) => claimSingle(tx, q, plan, options))
        : await retryStatement(db, () => claimSingle(db, q, plan, options))
      : await runClaimTransaction(db, (tx) => claimTwoStep(tx, q, plan, options));
  return sortDue(q, rows) as InferModel<M>[];
}

/** What a claim statement depends on besides the queue table. */
function claimKey(kind: string, plan: ClaimPlan, options: ClaimOptions): string {
  const lock = plan.lock === undefined ? "none" : plan.lock.skipLocked ? "skip" : "wait";
  const consumer = options.consumer === undefined ? "" : JSON.stringify(options.consumer);
  return `${kind}:${lock}:${options.size}:${consumer}`;
}

function candidates(q: QueueTable, plan: ClaimPlan, options: ClaimOptions) {
  return cachedStatement(q, claimKey("candidates", plan, options), () => {
    const query = select(q.model, [q.f.id] as any)
      .where(dueCondition(q, options.consumer) as any)
      .orderBy(q.f.nextAttemptAt as any)
      .limit(options.size);
    return plan.lock ? query.forUpdate(plan.lock) : query;
  });
}

/** The claim's assignments: the same for every claim of a queue table, so made once. */
function claimSet(q: QueueTable): Record<string, unknown> {
  return cachedStatement(q, "claimSet", () =>
    Object.freeze({
      [q.f.status]: q.s.sending,
      // The fence: the claim token where the table has one (attempts then counts failures only).
      [q.fence]: plusOne(q, q.fence),
      [q.f.updatedAt]: sql.now(),
    }),
  );
}

async function claimSingle(db: Executor, q: QueueTable, plan: ClaimPlan, options: ClaimOptions): Promise<Record<string, unknown>[]> {
  const statement = cachedStatement(q, claimKey("single", plan, options), () =>
    update(q.model)
      .set(claimSet(q) as any)
      .where({ [q.f.id]: op.in(candidates(q, plan, options).asSubquery(q.f.id as any)) } as any)
      .returning(),
  );
  return (await db.execute(statement).all()) as Record<string, unknown>[];
}

async function claimTwoStep(tx: Executor, q: QueueTable, plan: ClaimPlan, options: ClaimOptions): Promise<Record<string, unknown>[]> {
  const found = (await tx.execute(candidates(q, plan, options)).all()) as Record<string, unknown>[];
  const ids = found.map((r) => r[q.f.id]);
  if (ids.length === 0) return [];
  const statement = update(q.model)
    .set(claimSet(q) as any)
    .where({ [q.f.id]: op.in(ids) } as any);
  if (plan.returning) return (await tx.execute(statement.returning()).all()) as Record<string, unknown>[];
  await tx.execute(statement).rowsAffected();
  return (await tx.execute(select(q.model).where({ [q.f.id]: op.in(ids) } as any)).all()) as Record<string, unknown>[];
}

function sortDue(q: QueueTable, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const at = (r: Record<string, unknown>) => (r[q.f.nextAttemptAt] instanceof Date ? (r[q.f.nextAttemptAt] as Date).getTime() : 0);
  return rows.sort((a, b) => at(a) - at(b));
}
