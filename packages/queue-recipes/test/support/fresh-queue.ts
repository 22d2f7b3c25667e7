import type { Engine, InferModel, ModelClass } from "tempest-db-js";
import { dropTable, select } from "tempest-db-js";
import { ensureQueueSchema } from "../../src/index.js";
import { deadLetterModel, deliveryModel, outboundModel, tokenModel } from "./models.js";

/** Drops and recreates a queue table (with the recipes' indexes) and its deliveries table. */
export async function freshQueue(engine: Engine, name: string) {
  return freshQueueOf(engine, name, outboundModel);
}

/** freshQueue with the optional columns (claim token, last error). */
export async function freshTokenQueue(engine: Engine, name: string) {
  return freshQueueOf(engine, name, tokenModel);
}

/** freshQueue with the optional columns and the dead-letter ones (reclaims, deadReason, attemptHistory). */
export async function freshDeadLetterQueue(engine: Engine, name: string) {
  return freshQueueOf(engine, name, deadLetterModel);
}

async function freshQueueOf<M extends ModelClass<any>>(engine: Engine, name: string, make: (table: string) => M) {
  const Outbound = make(`qr_${name}`);
  const Delivery = deliveryModel(`qr_${name}_deliveries`);
  await engine.execute(dropTable(Outbound, { ifExists: true })).rowsAffected();
  await engine.execute(dropTable(Delivery, { ifExists: true })).rowsAffected();
  await ensureQueueSchema(engine, Outbound);
  await engine.createAll([Delivery]);
  return { Outbound, Delivery };
}

/** Every row of a model (tests only look at small tables or count in JS). */
export async function rowsOf<M extends ModelClass<any>>(engine: Engine, model: M): Promise<InferModel<M>[]> {
  return (await engine.execute(select(model)).all()) as InferModel<M>[];
}

export function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
}
