import type { RelationCount, RelationLoad, RelationPlan } from "../ast/relation-node.js";
import { relationSelectNode } from "../ast/relation-node.js";
import { linkedRowNesting } from "../ast/row-nesting.js";
import type { StatementNode } from "../ast/statement-node.js";
import { aggregateResult, internColumns, resultColumn } from "../builder/result-columns.js";
import { COUNT, LINK } from "../compiler/relation-compiler.js";
import type { ColumnMeta } from "../schema/column-meta.js";
import type { RelationMeta } from "../schema/relation-meta.js";
import { refusePlainOperators } from "./refuse-plain-operators.js";

/** Runs one statement of a load and gives its decoded rows. */
export type RunStatement = (node: StatementNode) => Promise<readonly unknown[]>;

type Row = Record<string, unknown>;

/**
 * Loads a plan's relations into `rows` (the owner rows, decoded), level by level: per relation one
 * statement for all the owner rows, its keys bound as one parameter, then the next level on the rows
 * it read. The number of statements depends on the plan alone, never on the number of rows.
 */
export async function loadRelations(run: RunStatement, rows: readonly Row[], plan: RelationPlan): Promise<void> {
  for (const load of plan.loads) await loadOne(run, rows, load);
  if (plan.counts.length > 0) {
    const counts = new Map<Row, Row>();
    for (const row of rows) {
      const holder: Row = {};
      counts.set(row, holder);
      row._count = holder;
    }
    for (const count of plan.counts) await countOne(run, rows, count, counts);
  }
}

/** Refuses (on a helpers-only engine) plain operator objects in any level's where, before anything runs. */
export function refusePlanOperators(plan: RelationPlan): void {
  for (const load of plan.loads) {
    refusePlainOperators(load.select);
    if (load.plan) refusePlanOperators(load.plan);
  }
  for (const count of plan.counts) refusePlainOperators(count.select);
}

async function loadOne(run: RunStatement, rows: readonly Row[], load: RelationLoad): Promise<void> {
  const relation = load.relation;
  const name = relation.name;
  const keyField = relation.key.field;
  const keys = distinctKeys(rows, keyField);
  const grouped = new Map<unknown, Row[]>();
  if (keys.length > 0) {
    const extra = relation.through !== undefined || !load.select.columns.includes(relation.link);
    const columns = extra ? linkedColumns(load.select.columns, relation) : load.select.columns;
    const node = relationSelectNode(relation, load.select, keys, false, extra, columns, extra ? linkedRowNesting(columns) : undefined);
    const read = (await run(node)) as Row[];
    const related: Row[] = extra ? new Array(read.length) : read;
    const linkField = relation.link.field;
    for (let i = 0; i < read.length; i++) {
      const r = read[i] as Row;
      const row = extra ? (r.row as Row) : r;
      const link = extra ? (r.link as Row)[LINK] : row[linkField];
      if (extra) related[i] = row;
      const list = grouped.get(link);
      if (list === undefined) grouped.set(link, [row]);
      else list.push(row);
    }
    if (load.plan !== undefined && related.length > 0) await loadRelations(run, related, load.plan);
  }
  for (const row of rows) {
    const key = row[keyField];
    const list = key === null || key === undefined ? undefined : grouped.get(key);
    row[name] = relation.many ? (list ?? []) : (list?.[0] ?? null);
  }
}

async function countOne(run: RunStatement, rows: readonly Row[], count: RelationCount, holders: Map<Row, Row>): Promise<void> {
  const relation = count.relation;
  const keyField = relation.key.field;
  const keys = distinctKeys(rows, keyField);
  const counted = new Map<unknown, number>();
  if (keys.length > 0) {
    const node = relationSelectNode(relation, count.select, keys, true, true, countColumns(relation), undefined);
    for (const r of (await run(node)) as Row[]) counted.set(r[LINK], r[COUNT] as number);
  }
  for (const row of rows) {
    const key = row[keyField];
    (holders.get(row) as Row)[relation.name] = key === null || key === undefined ? 0 : (counted.get(key) ?? 0);
  }
}

function distinctKeys(rows: readonly Row[], field: string): unknown[] {
  const seen = new Set<unknown>();
  for (let i = 0; i < rows.length; i++) {
    const key = (rows[i] as Row)[field];
    if (key !== null && key !== undefined) seen.add(key);
  }
  return [...seen];
}

/** The link value as an output of its own, decoded as the link column is. */
function linkOutput(relation: RelationMeta): ColumnMeta {
  return resultColumn(relation.link, LINK, relation.link.kind, true, undefined);
}

function linkedColumns(columns: readonly ColumnMeta[], relation: RelationMeta): readonly ColumnMeta[] {
  return internColumns([...columns, linkOutput(relation)], "relation");
}

function countColumns(relation: RelationMeta): readonly ColumnMeta[] {
  return internColumns([linkOutput(relation), aggregateResult("count", undefined, COUNT, "withCount")], "relationCount");
}
