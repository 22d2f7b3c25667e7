import type { ColumnKind, Expression } from "tempest-db-js";
import { col, fn, tableMeta } from "tempest-db-js";
import type { QueueTable } from "./queue-table.js";

/** `field + 1`, computed by the database (a counter, a fence): typed, its 1 bound. */
export function increment(q: QueueTable, field: string): Expression<number> {
  return fn.add(col(q.model, field as never) as Expression<number, "integer">, 1);
}

/**
 * `CASE WHEN id = id1 THEN v1 ... ELSE otherwise END` over the claims of one settlement: a value per
 * claim in one statement. Every id and value is bound; `otherwise` undefined is ELSE NULL.
 */
export function caseOnId(
  q: QueueTable,
  group: readonly Record<string, unknown>[],
  valueFor: (claim: Record<string, unknown>, i: number) => unknown,
  otherwise?: unknown,
): Expression<unknown> {
  const id = col(q.model, q.f.id as never) as Expression<unknown, any>;
  const kind = tableMeta(q.model).byField.get(q.f.id)?.kind as ColumnKind;
  const when = (claim: Record<string, unknown>) => fn.eq(id, fn.val(claim[q.f.id] as never, kind) as never);
  const [first, ...rest] = group;
  let cases = fn.case(when(first as Record<string, unknown>), valueFor(first as Record<string, unknown>, 0) as never);
  rest.forEach((claim, i) => {
    cases = cases.when(when(claim), valueFor(claim, i + 1) as never);
  });
  return otherwise === undefined ? cases : cases.else(otherwise as never);
}
