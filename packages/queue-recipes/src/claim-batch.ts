import type { Executor, ForUpdateOptions, InferModel, ModelClass } from "tempest-db-js";
import { op, select, sql, UnsupportedFeatureError, update, ValidationError } from "tempest-db-js";
import { queuedLevels } from "./claim-levels.js";
import { dueCondition } from "./due-condition.js";
import { FAIR_CANDIDATES_PER_CLAIM, fairCandidates } from "./fair-candidates.js";
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
  /**
   * Fair claims: every consumer's first due message before any consumer's second, and at most this
   * many of one consumer among them; room the cap leaves is filled by due time, so a consumer alone
   * still gets whole batches (see fair-candidates.ts). Unset: strictly by due time.
   */
  readonly perConsumer?: number;
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
 * The priority a claim takes: one value (`=`, a range of the `<table>_priority` index), or this one
 * and all above it (`>=`, past the levels walked one by one), or none (a table without priorities).
 */
type Level = { readonly value: number; readonly andAbove: boolean } | undefined;

/**
 * Claims up to `size` due messages, oldest first (with a priority column: lowest priority first,
 * then oldest): sets them `sending`, adds one to the fence in SQL
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
  if (options.perConsumer !== undefined) return sortDue(q, await claimFair(db, q, plan, options, options.perConsumer)) as InferModel<M>[];
  if (!q.has.priority) return sortDue(q, await claimOnce(db, q, plan, options, undefined)) as InferModel<M>[];
  // One claim per priority present, lowest first, until the batch is full: each is a range of the
  // priority index (status, priority, nextAttemptAt), so messages of a higher priority that are not
  // due yet cost one index probe, not a scan past them. An ORDER BY priority, nextAttemptAt over all
  // priorities would read every one of them before the first due row of the next priority.
  const levels = await queuedLevels(db, q);
  const rows: Record<string, unknown>[] = [];
  const last = levels.values.length - 1;
  for (let i = 0; i <= last && rows.length < size; i++) {
    const level = { value: levels.values[i] as number, andAbove: levels.open && i === last };
    rows.push(...(await claimOnce(db, q, plan, { ...options, size: size - rows.length }, level)));
  }
  return sortDue(q, rows) as InferModel<M>[];
}

async function claimFair(db: Executor, q: QueueTable, plan: ClaimPlan, options: ClaimOptions, perConsumer: number) {
  if (!Number.isSafeInteger(perConsumer) || perConsumer < 1) {
    throw new ValidationError(`claimBatch: perConsumer must be a positive integer, got ${valueKind(perConsumer)}`);
  }
  if (q.has.priority) {
    throw new ValidationError(
      "claimBatch: perConsumer (fair claims) does not combine with a priority column yet; claim with priorities, or fairly on a model without one",
    );
  }
  const ids = await fairCandidates(db, q, options.size, perConsumer, options.consumer);
  const rows = ids.length === 0 ? [] : await claimOnce(db, q, plan, options, undefined, ids);
  // Room left because the cap left too few candidates (not because other workers locked them):
  // filled by due time, so that a consumer alone in the queue still gets whole batches.
  if (rows.length < options.size && ids.length < options.size * FAIR_CANDIDATES_PER_CLAIM) {
    rows.push(...(await claimOnce(db, q, plan, { ...options, size: options.size - rows.length }, undefined)));
  }
  return rows;
}

function claimOnce(db: Executor, q: QueueTable, plan: ClaimPlan, options: ClaimOptions, level: Level, among?: readonly unknown[]) {
  return plan.strategy === "single"
    ? plan.transaction
      ? runClaimTransaction(db, (tx) => claimSingle(tx, q, plan, options, level, among))
      : retryStatement(db, () => claimSingle(db, q, plan, options, level, among))
    : runClaimTransaction(db, (tx) => claimTwoStep(tx, q, plan, options, level, among));
}

/** What a claim statement depends on besides the queue table. */
function claimKey(kind: string, plan: ClaimPlan, options: ClaimOptions, level: Level): string {
  const lock = plan.lock === undefined ? "none" : plan.lock.skipLocked ? "skip" : "wait";
  const consumer = options.consumer === undefined ? "" : JSON.stringify(options.consumer);
  const priority = level === undefined ? "" : `${level.andAbove ? ">=" : "="}${level.value}`;
  return `${kind}:${lock}:${options.size}:${consumer}:${priority}`;
}

/** The claim's locking select; `among`: only these ids (a fair claim's candidates, checked again here). */
export function candidates(q: QueueTable, plan: ClaimPlan, options: ClaimOptions, level: Level, among?: readonly unknown[]) {
  const make = () => {
    const where = dueCondition(q, options.consumer);
    if (among !== undefined) where[q.f.id] = op.in(among as unknown[]);
    let query = select(q.model, [q.f.id] as any);
    if (level !== undefined) {
      where[q.f.priority] = level.andAbove ? op.gte(level.value) : level.value;
      if (level.andAbove) query = query.orderBy(q.f.priority as any);
    }
    query = query
      .where(where as any)
      .orderBy(q.f.nextAttemptAt as any)
      .limit(options.size);
    return plan.lock ? query.forUpdate(plan.lock) : query;
  };
  return among === undefined ? cachedStatement(q, claimKey("candidates", plan, options, level), make) : make();
}

/** The claim's assignments: the same for every claim of a queue table, so made once. */
export function claimSet(q: QueueTable): Record<string, unknown> {
  return cachedStatement(q, "claimSet", () =>
    Object.freeze({
      [q.f.status]: q.s.sending,
      // The fence: the claim token where the table has one (attempts then counts failures only).
      [q.fence]: plusOne(q, q.fence),
      [q.f.updatedAt]: sql.now(),
    }),
  );
}

async function claimSingle(
  db: Executor,
  q: QueueTable,
  plan: ClaimPlan,
  options: ClaimOptions,
  level: Level,
  among?: readonly unknown[],
): Promise<Record<string, unknown>[]> {
  const make = () =>
    update(q.model)
      .set(claimSet(q) as any)
      .where({ [q.f.id]: op.in(candidates(q, plan, options, level, among).asSubquery(q.f.id as any)) } as any)
      .returning();
  const statement = among === undefined ? cachedStatement(q, claimKey("single", plan, options, level), make) : make();
  return (await db.execute(statement).all()) as Record<string, unknown>[];
}

async function claimTwoStep(
  tx: Executor,
  q: QueueTable,
  plan: ClaimPlan,
  options: ClaimOptions,
  level: Level,
  among?: readonly unknown[],
): Promise<Record<string, unknown>[]> {
  const found = (await tx.execute(candidates(q, plan, options, level, among)).all()) as Record<string, unknown>[];
  const ids = found.map((r) => r[q.f.id]);
  if (ids.length === 0) return [];
  // The UPDATE ... SET and the re-read's SELECT are the same every claim: only the ids are built per batch.
  const byIds = { [q.f.id]: op.in(ids) };
  const statement = cachedStatement(q, "claimUpdate", () => update(q.model).set(claimSet(q) as any)).where(byIds as any);
  if (plan.returning) return (await tx.execute(statement.returning()).all()) as Record<string, unknown>[];
  await tx.execute(statement).rowsAffected();
  return (await tx.execute(cachedStatement(q, "reread", () => select(q.model)).where(byIds as any)).all()) as Record<string, unknown>[];
}

export function sortDue(q: QueueTable, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const at = (r: Record<string, unknown>) => (r[q.f.nextAttemptAt] instanceof Date ? (r[q.f.nextAttemptAt] as Date).getTime() : 0);
  if (!q.has.priority) return rows.sort((a, b) => at(a) - at(b));
  const priority = (r: Record<string, unknown>) => Number(r[q.f.priority]);
  return rows.sort((a, b) => priority(a) - priority(b) || at(a) - at(b));
}
