// The code blocks of the outbox guide, as the guide writes them. Only the free variables the
// guide leaves to the reader (session, message, retryAt, backoff, id, deliver, backoffSeconds)
// are supplied, through `context`; everything between the "guide" markers is verbatim.
import { Model, column } from "tempest-db-js";
import { createEngine, select, update, sql } from "tempest-db-js";
import { insert } from "tempest-db-js";
import type { InferInsert, Session } from "tempest-db-js";

export const context = {
  session: undefined as unknown as Session,
  message: undefined as unknown as InferInsert<typeof Outbound>,
  retryAt: new Date(),
  backoff: 30,
  backoffSeconds: 30,
  id: "",
  deliver: async (_id: string): Promise<void> => {},
};

// ---- guide: the model -------------------------------------------------------------------------
class Outbound extends Model {
  static tablename = "outbound_messages";
  static naming = "snake_case";

  id = column.uuid().primaryKey();
  consumer = column.text().notNull();
  idempotencyKey = column.text();
  status = column.enum("queued", "sending", "sent", "failed").notNull();
  attempts = column.integer().notNull().default(0);
  nextAttemptAt = column.datetime().notNull();
  updatedAt = column.datetime();
}
// ---- end guide --------------------------------------------------------------------------------

export { Outbound };

// ---- guide: 1. claim a batch ------------------------------------------------------------------
const engine = createEngine("postgresql://app@localhost/app");

async function claimBatch(size: number): Promise<string[]> {
  return engine.transaction(async (tx) => {
    const rows = await tx
      .execute(
        select(Outbound, ["id"])
          .where({ status: "queued" })
          .orderBy("nextAttemptAt")
          .limit(size)
          .forUpdate({ skipLocked: true }),  // (1)!
      )
      .all();

    const ids = rows.map((row) => row.id);
    if (ids.length === 0) return [];

    await tx
      .execute(
        update(Outbound)
          .set({
            status: "sending",
            attempts: sql.raw("attempts + 1"),  // (2)!
            updatedAt: sql.now(),
          })
          .where({ id: { in: ids } }),
      )
      .rowsAffected();

    return ids;
  });
}
// ---- end guide --------------------------------------------------------------------------------

export { engine, claimBatch };

/** The single-statement claim, verbatim. */
export async function claimInOneStatement() {
  const { session } = context;
  // ---- guide: in a single query -------------------------------------------------------------
  const claimed = await session
    .execute(
      update(Outbound)
        .set({
          status: "sending",
          attempts: sql.raw("attempts + 1"),
          updatedAt: sql.now(),
        })
        .where({
          id: {
            in: select(Outbound)
              .where({ status: "queued" })
              .orderBy("nextAttemptAt")
              .limit(10)
              .forUpdate({ skipLocked: true })
              .asSubquery("id"),          // (1)!
          },
        })
        .returning(),
    )
    .all();
  // ---- end guide ----------------------------------------------------------------------------
  return claimed;
}

/** 2. Idempotency, verbatim. */
export async function enqueueIdempotently() {
  const { session, message } = context;
  let repeated = false;
  // ---- guide: onConflictDoNothing -----------------------------------------------------------
  const inserted = await session
    .execute(
      insert(Outbound)
        .values(message)
        .onConflictDoNothing(["consumer", "idempotencyKey"], {
          where: { idempotencyKey: { isNull: false } },  // (1)!
        })
        .returning(),
    )
    .all();

  if (inserted.length === 0) {
    // It already existed: an idempotent repeat, nothing to do.
    repeated = true;
  }
  // ---- end guide ----------------------------------------------------------------------------
  return { inserted, repeated };
}

/** onConflictDoUpdate, verbatim (the guide shows the builder; the test executes it). */
export function upsertForRetry() {
  const { message, retryAt } = context;
  // ---- guide: onConflictDoUpdate ------------------------------------------------------------
  return insert(Outbound)
  .values(message)
  .onConflictDoUpdate(
    ["consumer", "idempotencyKey"],
    { status: "queued", nextAttemptAt: retryAt },
    {
      indexWhere: { idempotencyKey: { isNull: false } },  // the index predicate
      updateWhere: { attempts: { lt: 5 } },               // only rewrite rows that may retry
    },
  );
  // ---- end guide ----------------------------------------------------------------------------
}

/** 3. Counters without a race, verbatim. */
export function backoffUpdate() {
  const { backoff, id } = context;
  // ---- guide: expressions in set ------------------------------------------------------------
  return update(Outbound)
  .set({
    attempts: sql.raw("attempts + 1"),                 // verbatim SQL
    nextAttemptAt: sql.expr`now() + ${backoff} * interval '1 second'`,
    updatedAt: sql.now(),                              // portable token
  })
  .where({ id });
  // ---- end guide ----------------------------------------------------------------------------
}

/** The complete worker, verbatim. */
export async function drain(): Promise<void> {
  const { session, deliver, backoffSeconds } = context;
  // ---- guide: the complete worker (body) ----------------------------------------------------
  const ids = await claimBatch(10);
  for (const id of ids) {
    try {
      await deliver(id);
      await session
        .execute(
          update(Outbound)
            .set({ status: "sent", updatedAt: sql.now() })
            .where({ id }),
        )
        .rowsAffected();
    } catch {
      await session
        .execute(
          update(Outbound)
            .set({
              status: "queued",
              nextAttemptAt: sql.expr`now() + ${backoffSeconds} * interval '1 second'`,
            })
            .where({ id }),
        )
        .rowsAffected();
    }
  }
  // ---- end guide ----------------------------------------------------------------------------
}
