import { claimBatch, enqueue, ensureQueueSchema, markFailed, markSent, withQueueFeatures } from "@tempest-db-js/queue-recipes";
import type { Engine, ModelClass } from "tempest-db-js";
import { dropTable, select } from "tempest-db-js";
import { guideModel } from "../../src/queue-target.js";

/** The guide's model on a table of the test's own, with every optional queue column. */
export function consoleModel(tablename: string): ModelClass<any> {
  return withQueueFeatures(guideModel(tablename));
}

/**
 * A small queue in a known state: mail 3 queued; sms 1 sent, 1 sending; webhook 2 failed (one error
 * holds markup, to prove the page shows it as text). Returns the model and the ids by state.
 */
export async function seedQueue(engine: Engine, tablename: string) {
  const Outbound = consoleModel(tablename);
  await engine.execute(dropTable(Outbound, { ifExists: true })).rowsAffected();
  await ensureQueueSchema(engine, Outbound);
  await enqueue(engine, Outbound, [{ consumer: "webhook" }, { consumer: "webhook" }]);
  const failing = await claimBatch(engine, Outbound, { size: 2 });
  await markFailed(engine, Outbound, failing, {
    errorOf: (claim) => (claim === failing[0] ? 'HTTP 500 <img src=x onerror="alert(1)">' : "connection reset\u001b[2J"), // a terminal escape: the CLI must not pass it on
  });
  await enqueue(engine, Outbound, [{ consumer: "sms" }, { consumer: "sms" }]);
  const sms = await claimBatch(engine, Outbound, { size: 2 });
  await markSent(engine, Outbound, [sms[0] as object]);
  await enqueue(engine, Outbound, [{ consumer: "mail" }, { consumer: "mail" }, { consumer: "mail" }]);
  const rows = (await engine.execute(select(Outbound)).all()) as { id: string; status: string }[];
  const ids = (status: string) => rows.filter((r) => r.status === status).map((r) => r.id);
  return { Outbound, failed: ids("failed"), queued: ids("queued"), sending: ids("sending"), sent: ids("sent") };
}
