import type { Expression } from "tempest-db-js";
import { col, fn } from "tempest-db-js";
import type { QueueTable } from "./queue-table.js";

/** `field + 1`, computed by the database (`"attempts" + 1`): no count travels to Node and back. */
export function plusOne(q: QueueTable, field: string): Expression<number, "integer"> {
  return fn.add(col(q.model, field as never) as Expression<number, "integer">, fn.lit(1));
}

/**
 * One value per claim in a single statement: `CASE WHEN id = $1 THEN v1 WHEN id = $2 THEN v2 ... END`
 * (ELSE `otherwise`, or NULL), so a batch whose claims need different values is still one UPDATE.
 */
export function perClaim(
  q: QueueTable,
  claims: readonly Record<string, unknown>[],
  values: readonly Expression<any, any>[],
  otherwise?: Expression<any, any>,
): Expression<any, any> {
  const id = col(q.model, q.f.id as never) as Expression<any, any>;
  const kind = q.meta.byField.get(q.f.id)?.kind ?? "text";
  const when = (i: number) => fn.eq(id, fn.val(claims[i]?.[q.f.id] as never, kind as never) as Expression<any, any>);
  let cases = fn.case(when(0), values[0] as Expression<any, any>);
  for (let i = 1; i < claims.length; i++) cases = cases.when(when(i), values[i] as Expression<any, any>);
  return otherwise === undefined ? cases : cases.else(otherwise);
}
