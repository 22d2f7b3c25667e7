import type { SchemaChange, SchemaSnapshot } from "tempest-db-js";
import type { MigrationPlan } from "./migration-plan.js";

/**
 * The plan with the indexes the live database made for its foreign keys (read with
 * `introspect(engine, { foreignKeyIndexes: true })`) on the tables its key and index drops carry.
 * A plan made from the last migration's snapshot knows the tables only as the models declared them;
 * MySQL 8 needs the name of the index InnoDB made for a key to drop it with the key (it has no `DROP
 * INDEX IF EXISTS`), and only the database knows whether that index exists.
 */
export function withLiveKeyIndexes(plan: MigrationPlan, live: SchemaSnapshot): MigrationPlan {
  const keyIndexes = new Map(live.tables.flatMap((t) => (t.foreignKeyIndexes ? [[t.name, t.foreignKeyIndexes] as const] : [])));
  if (keyIndexes.size === 0) return plan;
  const fill = (change: SchemaChange): SchemaChange => {
    if (change.kind !== "dropForeignKey" && change.kind !== "dropIndex") return change;
    const found = keyIndexes.get(change.table);
    if (change.owner === undefined || change.owner.foreignKeyIndexes !== undefined || found === undefined) return change;
    return { ...change, owner: { ...change.owner, foreignKeyIndexes: found } };
  };
  return { ...plan, changes: plan.changes.map((planned) => ({ ...planned, change: fill(planned.change) })) };
}
