import { isDeepStrictEqual } from "node:util";
import type { Expression } from "../ast/expression.js";
import { and, not, or } from "../builder/condition.js";
import { deleteFrom } from "../builder/delete-builder.js";
import type { Executable } from "../builder/executable.js";
import { insert } from "../builder/insert-builder.js";
import { op } from "../builder/op.js";
import { select } from "../builder/select.js";
import { update } from "../builder/update-builder.js";
import type { SqlCompiler } from "../compiler/sql-compiler.js";
import { toNode } from "../engine/executor.js";
import { sql } from "../expression/sql.js";
import { ConformanceJob, JOB_IDS } from "./conformance-models.js";
import { hostileStrings } from "./hostile-strings.js";

/** The statement kinds the property covers: the four the shape cache keeps, and the kinds it compiles in full. */
export const SHAPE_CASE_KINDS = ["select", "insert", "update", "delete", "compound", "join", "rawStatement"] as const;
export type ShapeCaseKind = (typeof SHAPE_CASE_KINDS)[number];

/** Small deterministic generator (mulberry32), so a failing run is reproduced by its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
const pick = <T>(rand: Rand, items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
const int = (rand: Rand, max: number) => Math.floor(rand() * max);

/** Values of each kind, hostile where the kind allows (text, numbers at their edges, NUL the dialect may refuse). */
const text = (v: Rand) => (v() < 0.6 ? pick(v, hostileStrings) : `t${int(v, 1000)}`);
const integer = (v: Rand) => pick(v, [0, -1, 1, 2 ** 31 - 1, -(2 ** 31), int(v, 100)]);
const date = (v: Rand) => new Date(Date.UTC(2000, 0, 1) + int(v, 10 ** 12));

/**
 * A shape is drawn from `s` and its values from `v`: the same `s` with two `v` gives two statements of
 * one shape with different values.
 */
function where(s: Rand, v: Rand, depth = 0): unknown {
  const roll = s();
  if (depth < 3 && roll < 0.15) return and(where(s, v, depth + 1) as never, where(s, v, depth + 1) as never);
  if (depth < 3 && roll < 0.3) return or(where(s, v, depth + 1) as never, where(s, v, depth + 1) as never);
  if (depth < 3 && roll < 0.38) return not(where(s, v, depth + 1) as never);
  switch (int(s, 9)) {
    case 0:
      return { consumer: text(v) };
    case 1:
      return { consumer: op.ne(text(v)) };
    case 2:
      return { attempts: op.lt(integer(v)) };
    case 3:
      return { attempts: op.between(integer(v), integer(v)) };
    case 4:
      return { idempotencyKey: op.isNull() };
    case 5:
      return { idempotencyKey: v() < 0.5 ? null : text(v) };
    case 6:
      return { nextAttemptAt: op.lte(date(v)) };
    case 7:
      return { status: pick(v, ["queued", "sending", "sent", "failed"] as const) };
    default:
      return { id: pick(v, JOB_IDS) };
  }
}

function job(v: Rand, fields: number) {
  const row: Record<string, unknown> = { id: pick(v, JOB_IDS), consumer: text(v), status: "queued", nextAttemptAt: date(v) };
  if (fields > 0) row.attempts = integer(v);
  if (fields > 1) row.idempotencyKey = v() < 0.3 ? null : text(v);
  return row;
}

function statement(kind: ShapeCaseKind, s: Rand, v: Rand): Executable<unknown> | Expression<unknown> {
  switch (kind) {
    case "select": {
      let q = (
        s() < 0.5
          ? select(ConformanceJob)
          : (select(ConformanceJob, ["id", "attempts"]) as never as ReturnType<typeof select<typeof ConformanceJob>>)
      ).where(where(s, v) as never);
      if (s() < 0.5) q = q.orderBy(pick(s, ["attempts", "nextAttemptAt"] as const), pick(s, ["asc", "desc"] as const));
      if (s() < 0.5) q = q.limit(1 + int(s, 3));
      if (s() < 0.2) q = q.offset(int(s, 3));
      if (s() < 0.2) q = q.forUpdate(s() < 0.5 ? {} : { skipLocked: true });
      return q;
    }
    case "insert": {
      const rows = 1 + int(s, 3);
      const fields = int(s, 3);
      const q = insert(ConformanceJob).values(Array.from({ length: rows }, () => job(v, fields)) as never);
      return s() < 0.3 ? q.returning(["id"]) : q;
    }
    case "update": {
      const set: Record<string, unknown> = { attempts: integer(v) };
      if (s() < 0.5) set.consumer = text(v);
      if (s() < 0.3) set.updatedAt = v() < 0.5 ? null : date(v);
      const q = update(ConformanceJob)
        .set(set as never)
        .where(where(s, v) as never);
      return s() < 0.3 ? q.returning(["id"]) : q;
    }
    case "delete": {
      const q = deleteFrom(ConformanceJob).where(where(s, v) as never);
      return s() < 0.3 ? q.returning(["id"]) : q;
    }
    case "compound":
      return select(ConformanceJob, ["id"])
        .where(where(s, v) as never)
        .union(select(ConformanceJob, ["id"]).where(where(s, v) as never));
    case "join":
      return select(ConformanceJob, "a")
        .innerJoin(ConformanceJob, "b", "b.id", "a.id")
        .columns({ id: "a.id" })
        .where({ "b.consumer": text(v) } as never);
    case "rawStatement":
      return sql.expr`SELECT ${text(v)} AS a, ${integer(v)} AS b`;
  }
}

/** What a compile gives: its text and parameters, or the typed error it throws. */
function outcome(compiler: SqlCompiler, query: Executable<unknown> | Expression<unknown>): unknown {
  try {
    const compiled = compiler.compile(toNode(query));
    return { sql: compiled.sql, params: compiled.params };
  } catch (error) {
    return { error: (error as Error).name, message: (error as Error).message };
  }
}

/**
 * The property "a cached compile equals the full compile": for `runs` shapes of `kind`, a compiler
 * that compiled one statement of the shape compiles a second one (other values) to exactly what a
 * fresh compiler writes for it in full: the same text, the same parameters, or the same error.
 * `makeCompiler` makes a compiler for the dialect's capabilities; returns the runs that differ.
 */
export function shapeCacheMismatches(makeCompiler: () => SqlCompiler, kind: ShapeCaseKind, runs = 100, seed = 1): string[] {
  const mismatches: string[] = [];
  const cached = makeCompiler();
  for (let run = 0; run < runs; run++) {
    const shape = seed * 7919 + run;
    const build = (values: number): Executable<unknown> | Expression<unknown> | undefined => {
      try {
        return statement(kind, random(shape), random(values));
      } catch {
        // A statement the builders refuse (a value its column refuses) has no compile to compare.
        return undefined;
      }
    };
    const first = build(shape * 31 + 1);
    const second = build(shape * 31 + 2);
    if (first === undefined || second === undefined) continue;
    outcome(cached, first);
    const got = outcome(cached, second);
    const full = outcome(makeCompiler(), second);
    if (!isDeepStrictEqual(got, full)) {
      mismatches.push(`${kind} run ${run} (seed ${seed}): cached ${JSON.stringify(got)} but full ${JSON.stringify(full)}`);
    }
  }
  return mismatches;
}
