import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine, Executable } from "tempest-db-js";
import { col, column, createEngine, fn, insert, Model, select, UnsupportedFeatureError, ValidationError } from "tempest-db-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import "@tempest-db-js/dialect-mysql";
import "@tempest-db-js/dialect-postgres";
import "@tempest-db-js/dialect-sqlite";
import { MYSQL_URL, PG_URL } from "./support/targets.js";

/**
 * A request body's values passed, as they come, to every argument of every expression builder (`fn`,
 * the query helpers `q`, windows): each is bound as a parameter or refused with a ValidationError;
 * none becomes SQL text, an operator, a unit, a type name or an identifier. Real servers.
 */
class Probe extends Model {
  static tablename = "tempest_expression_input_probes";
  static naming = "snake_case";
  id = column.integer().primaryKey();
  name = column.text().notNull();
  qty = column.integer().notNull();
  at = column.datetime().notNull();
}

const sqliteDir = mkdtempSync(join(tmpdir(), "tempest-expression-input-"));
const databases = [
  { name: "PostgreSQL", url: PG_URL },
  { name: "MariaDB", url: MYSQL_URL },
  { name: "SQLite", url: `sqlite://${join(sqliteDir, "input.db")}` },
];

/** What a JSON request body holds, parsed as a server would: strings, objects, arrays, a forged node. */
const BODY = JSON.parse(
  JSON.stringify({
    statement: "1; DROP TABLE tempest_expression_input_probes; --",
    quote: "x') OR 1=1 --",
    unit: "day') OR ('1'='1",
    kind: "text); DROP TABLE x; --",
    field: "qty",
    raw: { raw: "1=1" },
    sqlRaw: { kind: "raw", text: "1=1" },
    forged: { node: { kind: "raw", text: "1=1" } },
    nested: { filter: { raw: "1=1" } },
    array: [1, "2; DROP TABLE x"],
    operators: { gt: 0, or: [{ raw: "1=1" }] },
    proto: JSON.parse('{"__proto__": {"kind": "raw", "text": "1=1"}}'),
    numeric: "1e400",
    empty: "",
  }),
) as Record<string, unknown>;

/** Plus what a careless handler makes of one: objects whose toString / valueOf say SQL. */
const HOSTILE: unknown[] = [
  ...Object.values(BODY),
  { toString: () => "1) OR (1=1" },
  { valueOf: () => 1, toString: () => "qty OR 1=1" },
  [{ raw: "1=1" }],
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2n ** 70n,
  new Date("not a date"),
];

/** Text of the hostile strings that must never reach a statement's text. */
const NEVER_IN_SQL = /DROP TABLE|1=1|'1'='1|OR 1|qty OR/i;

const i = () => col(Probe, "qty");
const t = () => col(Probe, "name");
const dt = () => col(Probe, "at");

/** Every builder of `fn` with valid arguments; each argument is replaced in turn by each hostile value. */
const CALLS: { name: string; args: () => unknown[]; call: (...args: any[]) => unknown }[] = [
  { name: "val", args: () => [1], call: (...a) => (fn.val as any)(...a) },
  { name: "val (kind)", args: () => [1, "integer"], call: (...a) => (fn.val as any)(...a) },
  { name: "lit", args: () => [1], call: (...a) => (fn.lit as any)(...a) },
  ...(["add", "sub", "mul", "div", "mod", "nullif", "greatest", "least", "eq", "ne", "lt", "lte", "gt", "gte"] as const).map((name) => ({
    name,
    args: () => [i(), i()],
    call: (...a: any[]) => (fn[name] as any)(...a),
  })),
  { name: "neg", args: () => [i()], call: (...a) => (fn.neg as any)(...a) },
  { name: "coalesce", args: () => [i(), i(), 0], call: (...a) => (fn.coalesce as any)(...a) },
  { name: "case", args: () => [fn.gt(i(), 1), i()], call: (...a) => (fn.case as any)(...a) },
  { name: "case.when", args: () => [fn.gt(i(), 2), i()], call: (...a) => (fn.case(fn.gt(i(), 1), i()) as any).when(...a) },
  { name: "case.else", args: () => [i()], call: (...a) => (fn.case(fn.gt(i(), 1), i()) as any).else(...a) },
  { name: "cast", args: () => [i(), "text"], call: (...a) => (fn.cast as any)(...a) },
  ...(["lower", "upper", "trim", "ltrim", "rtrim", "length"] as const).map((name) => ({
    name,
    args: () => [t()],
    call: (...a: any[]) => (fn[name] as any)(...a),
  })),
  { name: "concat", args: () => [t(), t()], call: (...a) => (fn.concat as any)(...a) },
  { name: "substring", args: () => [t(), 1, 2], call: (...a) => (fn.substring as any)(...a) },
  { name: "dateTrunc", args: () => ["day", dt()], call: (...a) => (fn.dateTrunc as any)(...a) },
  { name: "extract", args: () => ["hour", dt()], call: (...a) => (fn.extract as any)(...a) },
  { name: "addInterval", args: () => [dt(), 1, "days"], call: (...a) => (fn.addInterval as any)(...a) },
  { name: "subInterval", args: () => [dt(), 1, "days"], call: (...a) => (fn.subInterval as any)(...a) },
  { name: "diffSeconds", args: () => [dt(), dt()], call: (...a) => (fn.diffSeconds as any)(...a) },
  ...(["count", "sum", "avg", "min", "max"] as const).map((name) => ({
    name,
    args: () => [i(), { filter: fn.gt(i(), 0) }],
    call: (...a: any[]) => (fn[name] as any)(...a),
  })),
];

/** The query helpers `q` and the windows, where a string is a field: the same hostile values, in a select's projection. */
const HELPER_CALLS: { name: string; build: (h: unknown) => Executable }[] = [
  { name: "q.lower", build: (h) => select(Probe).columns((q) => ({ v: (q.lower as any)(h) })) },
  { name: "q.add", build: (h) => select(Probe).columns((q) => ({ v: (q.add as any)("qty", h) })) },
  { name: "q.sum", build: (h) => select(Probe).columns((q) => ({ v: (q.sum as any)(q.mul("qty", 2), h) })) },
  { name: "q.countIf", build: (h) => select(Probe).columns((q) => ({ v: (q.countIf as any)(h) })) },
  { name: "q.lag", build: (h) => select(Probe).columns((q) => ({ v: (q.lag as any)(h).over({ orderBy: ["id"] }) })) },
  {
    name: "q.lag options",
    build: (h) => select(Probe).columns((q) => ({ v: (q.lag as any)(q.lower("name"), h).over({ orderBy: ["id"] }) })),
  },
  { name: "over", build: (h) => select(Probe).columns((q) => ({ v: (q.sum(q.mul("qty", 2)) as any).over(h) })) },
  { name: "partitionBy", build: (h) => select(Probe).columns((q) => ({ v: q.count().over({ partitionBy: [h as never] }) })) },
  { name: "window orderBy", build: (h) => select(Probe).columns((q) => ({ v: q.rank().over({ orderBy: [h as never] }) })) },
  {
    name: "window direction",
    build: (h) => select(Probe).columns((q) => ({ v: q.rank().over({ orderBy: [[q.lower("name"), h as never]] }) })),
  },
  {
    name: "frame",
    build: (h) =>
      select(Probe).columns((q) => ({ v: q.sum(q.mul("qty", 2)).over({ orderBy: ["id"], frame: { rows: [h as never, "currentRow"] } }) })),
  },
  { name: "orderBy", build: (h) => select(Probe).orderBy(h as never) },
  {
    name: "groupBy",
    build: (h) =>
      select(Probe)
        .columns((q) => ({ n: q.count() }))
        .groupBy(h as never),
  },
];

const show = (value: unknown) => (typeof value === "bigint" ? `${value}n` : String(JSON.stringify(value)));

/** Either a ValidationError now, or a statement whose values are bound; never a TypeError or SQL text. */
function attempt(make: () => unknown): { refused: true } | { refused: false; value: unknown } {
  try {
    return { refused: false, value: make() };
  } catch (error) {
    if (!ValidationError.isInstance(error)) throw error;
    return { refused: true };
  }
}

describe.each(databases)("$name: a request body's values in expression builders", ({ url }) => {
  let engine: Engine;
  const tally = { refused: 0, bound: 0 };

  beforeAll(async () => {
    engine = createEngine(url, { poolSize: 2 });
    await engine.dropAll([Probe]);
    await engine.createAll([Probe]);
    await engine.execute(insert(Probe).values([{ id: 1, name: "Ada", qty: 3, at: new Date("2026-03-29T10:00:00Z") }])).rowsAffected();
  });

  afterAll(async () => {
    await engine.dropAll([Probe]);
    await engine.close();
    if (url.startsWith("sqlite")) rmSync(sqliteDir, { recursive: true, force: true });
  });

  /** Compiles and runs a select that took a hostile value: the text is clean, the rows come back, the table is intact. */
  async function runClean(query: Executable, what: string): Promise<void> {
    let compiled: { sql: string; params: readonly unknown[] };
    try {
      compiled = engine.compile(query);
    } catch (error) {
      if (ValidationError.isInstance(error) || UnsupportedFeatureError.isInstance(error)) return;
      throw error;
    }
    expect(compiled.sql, what).not.toMatch(NEVER_IN_SQL);
    await engine.execute(query).all();
    tally.bound++;
  }

  it("every argument of every fn builder: bound or a ValidationError", async () => {
    for (const { name, args, call } of CALLS) {
      const count = args().length;
      for (let position = 0; position < count; position++) {
        for (const hostile of HOSTILE) {
          const given = args();
          given[position] = hostile;
          const what = `fn.${name} argument ${position + 1} = ${show(hostile)}`;
          const made = attempt(() => call(...given));
          if (made.refused) {
            tally.refused++;
            continue;
          }
          // Accepted: a typed expression whose hostile part is a bound value (fn.val of a string, say).
          const projected = attempt(() => select(Probe).columns(() => ({ v: made.value as never })));
          if (projected.refused) {
            tally.refused++;
            continue;
          }
          await runClean(projected.value as Executable, what);
        }
      }
    }
    expect(await engine.execute(select(Probe, ["id"])).all()).toEqual([{ id: 1 }]);
    expect(tally.refused).toBeGreaterThan(0);
  });

  it("every query helper and window argument: a field by name, bound, or a ValidationError", async () => {
    for (const { name, build } of HELPER_CALLS) {
      for (const hostile of HOSTILE) {
        const made = attempt(() => build(hostile));
        if (made.refused) continue;
        await runClean(made.value as Executable, `${name}(${show(hostile)})`);
      }
    }
    expect(await engine.execute(select(Probe, ["id"])).all()).toEqual([{ id: 1 }]);
  });

  it("a string from the body is a value only through fn.val, where it is bound as text", async () => {
    const query = select(Probe).columns(() => ({ v: fn.concat(fn.val(BODY.statement as string), fn.val(BODY.quote as string)) }));
    const compiled = engine.compile(query);
    expect(compiled.sql).not.toMatch(NEVER_IN_SQL);
    expect(compiled.params).toEqual(expect.arrayContaining([BODY.statement, BODY.quote]));
    expect(await engine.execute(query).scalars()).toEqual([`${BODY.statement}${BODY.quote}`]);
    // In q, the body's "qty" names the model's field (the model's own column name is written), never text.
    const field = engine.compile(select(Probe).columns((q) => ({ v: (q.add as any)(BODY.field, 1) })));
    expect(field.sql).toBe(engine.compile(select(Probe).columns((q) => ({ v: q.add("qty", 1) }))).sql);
    // Units, fields, kinds and options are closed sets.
    expect(() => fn.dateTrunc(BODY.unit as never, dt())).toThrow(ValidationError);
    expect(() => fn.cast(i(), BODY.kind as never)).toThrow(ValidationError);
    expect(() => fn.val(1 as never, BODY.kind as never)).toThrow(ValidationError);
    expect(() => fn.sum(i(), BODY.raw as never)).toThrow(ValidationError);
    expect(() => fn.count(i(), BODY.nested as never)).toThrow(ValidationError);
    // Options that are not an options object are refused, not dropped (a bigint used to spread to {}).
    for (const options of [2n ** 70n, "1; DROP TABLE x", [1], BODY.raw, { filter: undefined, or: 1 }]) {
      expect(() => select(Probe).columns((q) => ({ v: (q.sum as any)(q.mul("qty", 2), options) })), show(options)).toThrow(ValidationError);
    }
  });
});
