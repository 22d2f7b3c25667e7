import { appendFileSync } from "node:fs";
import { loadavg } from "node:os";
import type { Engine } from "tempest-db-js";
import { sql } from "tempest-db-js";

/** One reading of a PostgreSQL queue table's size, dead rows, vacuums and the oldest snapshot that holds them. */
export interface TableReading {
  readonly tableBytes: number;
  readonly indexBytes: number;
  readonly totalBytes: number;
  readonly liveTuples: number;
  readonly deadTuples: number;
  readonly updates: number;
  readonly hotUpdates: number;
  readonly autovacuums: number;
  readonly lastAutovacuum: string | null;
  /** Age in transactions of the oldest backend_xmin in this database (what holds a normal table's dead rows), 0 when none. */
  readonly oldestXminAgeHere: number;
  /** The same over every database of the server (only shared catalogs are held by the other databases). */
  readonly oldestXminAgeServer: number;
  readonly idleInTransactionHere: number;
  /** Bytes of each index, by name. */
  readonly indexes: Record<string, number>;
}

/**
 * pg_stat_user_tables and pg_stat_activity for one table, as the soak logs them: the figures that
 * tell whether a growing table is vacuum not running, vacuum held back by an old snapshot, or live rows.
 */
export async function readTable(engine: Engine, table: string): Promise<TableReading> {
  const row = await engine
    .execute(
      sql.typed(
        sql.expr`SELECT pg_relation_size(${table}::regclass) AS "tableBytes", pg_indexes_size(${table}::regclass) AS "indexBytes",
          pg_total_relation_size(${table}::regclass) AS "totalBytes", s.n_live_tup AS "liveTuples", s.n_dead_tup AS "deadTuples",
          s.n_tup_upd AS "updates", s.n_tup_hot_upd AS "hotUpdates", s.autovacuum_count AS "autovacuums",
          s.last_autovacuum::text AS "lastAutovacuum",
          (SELECT coalesce(max(age(backend_xmin)), 0) FROM pg_stat_activity WHERE datname = current_database()) AS "oldestXminAgeHere",
          (SELECT coalesce(max(age(backend_xmin)), 0) FROM pg_stat_activity) AS "oldestXminAgeServer",
          (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%') AS "idleInTransactionHere",
          (SELECT json_object_agg(i.indexrelid::regclass::text, pg_relation_size(i.indexrelid)) FROM pg_index i WHERE i.indrelid = ${table}::regclass) AS "indexes"
          FROM pg_stat_user_tables s WHERE s.relid = ${table}::regclass`,
        {
          tableBytes: "bigint",
          indexBytes: "bigint",
          totalBytes: "bigint",
          liveTuples: "bigint",
          deadTuples: "bigint",
          updates: "bigint",
          hotUpdates: "bigint",
          autovacuums: "bigint",
          lastAutovacuum: "text?",
          oldestXminAgeHere: "bigint",
          oldestXminAgeServer: "bigint",
          idleInTransactionHere: "bigint",
          indexes: "json",
        },
      ),
    )
    .first();
  if (!row) throw new Error(`no statistics for ${table}`);
  const n = (v: unknown) => Number(v);
  return {
    tableBytes: n(row.tableBytes),
    indexBytes: n(row.indexBytes),
    totalBytes: n(row.totalBytes),
    liveTuples: n(row.liveTuples),
    deadTuples: n(row.deadTuples),
    updates: n(row.updates),
    hotUpdates: n(row.hotUpdates),
    autovacuums: n(row.autovacuums),
    lastAutovacuum: row.lastAutovacuum ?? null,
    oldestXminAgeHere: n(row.oldestXminAgeHere),
    oldestXminAgeServer: n(row.oldestXminAgeServer),
    idleInTransactionHere: n(row.idleInTransactionHere),
    indexes: row.indexes as Record<string, number>,
  };
}

/**
 * Appends one JSON line to TEMPEST_SOAK_LOG when it is set (the full soak's record of its run), with
 * the machine's load averages (1, 5 and 15 min) and the time: on a shared machine the p99 is read beside them.
 */
export function logLine(entry: Record<string, unknown>): void {
  const file = process.env.TEMPEST_SOAK_LOG;
  const load = loadavg().map((l) => Number(l.toFixed(2)));
  if (file) appendFileSync(file, `${JSON.stringify({ ...entry, load, time: new Date().toISOString() })}\n`);
}
