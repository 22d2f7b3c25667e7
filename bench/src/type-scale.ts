/**
 * The type-checking cost of a large schema: 200 generated models of 12 columns, each queried with a
 * join, a group by with aggregates, a correlated notExists subquery, a filtered select and a relation
 * load, written once per library (tempest, Kysely, Drizzle) and checked by `tsc --extendedDiagnostics`
 * under strict. The models form a ring: each one's `parentId` names a row of the next, so every model
 * declares a belongs-to (`parent`) and a has-many (`children`, rows of the previous model). The
 * relation load is the same work in each library: the parent, the children filtered, ordered and
 * limited, each child's own children (two levels of nesting) filtered and limited, and a count of
 * children — tempest `.with()` / `.withCount()`, Kysely `jsonObjectFrom` / `jsonArrayFrom` and a
 * count subquery, Drizzle `relations()` with `db.query.x.findMany({ with, extras })`.
 * Reports each library's "Check time" and tempest's ratio to the others (target ≤ 0.5 of both).
 * With --rounds=N the three are checked N times, interleaved (tempest, Kysely, Drizzle, tempest, ...),
 * and the median of each is reported, so that a load that comes and goes on a shared machine falls
 * on all three alike; the checker's instantiation and type counts, which no load changes, are shown
 * beside the times.
 *
 *   pnpm --filter @tempest-db-js/bench exec tsx src/type-scale.ts [--models=200] [--rounds=3]
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const models = Number(process.argv.find((a) => a.startsWith("--models="))?.slice(9) ?? 200);
const rounds = Number(process.argv.find((a) => a.startsWith("--rounds="))?.slice(9) ?? 1);
const dir = join(root, ".type-scale");
const tsc = join(createRequire(join(root, "package.json")).resolve("typescript/package.json"), "..", "bin", "tsc");

const range = Array.from({ length: models }, (_, i) => i);
const next = (i: number) => (i + 1) % models;
const prev = (i: number) => (i + models - 1) % models;

function tempest(): string {
  const lines = [`import { Model, col, column, count, fn, notExists, op, ref, relation, select } from "tempest-db-js";`];
  for (const i of range) {
    lines.push(`export class M${i} extends Model {
  static tablename = "t${i}";
  id = column.integer().primaryKey();
  parentId = column.integer();
  name = column.text().notNull();
  status = column.enum("a", "b", "c").notNull();
  amount = column.integer().notNull();
  price = column.numeric(10, 2);
  createdAt = column.datetime().notNull();
  updatedAt = column.datetime();
  flag = column.boolean().notNull();
  note = column.text();
  score = column.real();
  code = column.varchar(20).notNull();
  parent = relation.belongsTo(() => M${next(i)}, this.parentId);
  children = relation.hasMany(() => M${prev(i)}, "parentId");
}`);
  }
  for (const i of range) {
    lines.push(`export const q${i} = [
  select(M${i}, "a").innerJoin(M${next(i)}, "b", "b.id", "a.parentId").where({ "a.status": "a", "b.amount": op.gt(5) }).orderBy("a.createdAt", "desc").limit(10),
  select(M${i}).columns((q) => ({ status: "status", n: q.count(), total: q.sum("amount"), last: q.max("createdAt") })).groupBy("status").having({ n: op.gt(1) }),
  select(M${i}, "a").where(notExists(select(M${next(i)}, "b").where({ "b.parentId": ref(M${i}, "a", "id") }))),
  select(M${i}, ["id", "name"]).where({ amount: op.gte(1), note: op.isNull() }),
  select(M${i}).columns({ n: count() }),
  select(M${i}).columns((q) => ({ id: "id", line: q.mul("amount", 3), score: q.coalesce("score", 0), size: q.case({ amount: op.gt(10) }, 1).else(0) })).where(fn.gt(fn.add(col(M${i}, "amount"), 1), 5)),
  select(M${i}).columns((q) => ({ status: "status", revenue: q.sum(q.mul("amount", 2)), flagged: q.countIf({ flag: true }) })).groupBy("status"),
  select(M${i}).where({ status: "a" }).with({ parent: true, children: (c) => c.where({ amount: op.gt(5) }).orderBy("createdAt", "desc").limit(5).with({ children: (g) => g.where({ flag: true }).limit(3) }) }).withCount({ children: true }),
] as const;`);
  }
  return lines.join("\n");
}

function kysely(): string {
  const lines = [
    `import { Kysely, SqliteDialect } from "kysely";`,
    `import type { Generated } from "kysely";`,
    `import { jsonArrayFrom, jsonObjectFrom } from "kysely/helpers/sqlite";`,
  ];
  for (const i of range) {
    lines.push(
      `interface T${i} { id: Generated<number>; parent_id: number | null; name: string; status: "a" | "b" | "c"; amount: number; price: string | null; created_at: Date; updated_at: Date | null; flag: boolean; note: string | null; score: number | null; code: string }`,
    );
  }
  lines.push(`interface DB { ${range.map((i) => `t${i}: T${i};`).join(" ")} }`);
  lines.push(`declare const db: Kysely<DB>;`, `void SqliteDialect;`);
  for (const i of range) {
    lines.push(`export const q${i} = [
  db.selectFrom("t${i} as a").innerJoin("t${next(i)} as b", "b.id", "a.parent_id").selectAll("a").select(["b.name as bname"]).where("a.status", "=", "a").where("b.amount", ">", 5).orderBy("a.created_at", "desc").limit(10),
  db.selectFrom("t${i}").select((eb) => ["status", eb.fn.countAll<number>().as("n"), eb.fn.sum<number>("amount").as("total"), eb.fn.max("created_at").as("last")]).groupBy("status").having((eb) => eb.fn.countAll(), ">", 1),
  db.selectFrom("t${i} as a").selectAll().where((eb) => eb.not(eb.exists(eb.selectFrom("t${next(i)} as b").select("b.id").whereRef("b.parent_id", "=", "a.id")))),
  db.selectFrom("t${i}").select(["id", "name"]).where("amount", ">=", 1).where("note", "is", null),
  db.selectFrom("t${i}").select((eb) => eb.fn.countAll<number>().as("n")),
  db.selectFrom("t${i}").select((eb) => ["id", eb("amount", "*", 3).as("line"), eb.fn.coalesce("score", eb.lit(0)).as("score"), eb.case().when("amount", ">", 10).then(1).else(0).end().as("size")]).where((eb) => eb(eb("amount", "+", 1), ">", 5)),
  db.selectFrom("t${i}").select((eb) => ["status", eb.fn.sum<number>(eb("amount", "*", 2)).as("revenue"), eb.fn.countAll<number>().filterWhere("flag", "=", true).as("flagged")]).groupBy("status"),
  db.selectFrom("t${i} as a").selectAll("a").where("a.status", "=", "a").select((eb) => [
    jsonObjectFrom(eb.selectFrom("t${next(i)} as p").selectAll("p").whereRef("p.id", "=", "a.parent_id")).as("parent"),
    jsonArrayFrom(eb.selectFrom("t${prev(i)} as c").selectAll("c").whereRef("c.parent_id", "=", "a.id").where("c.amount", ">", 5).orderBy("c.created_at", "desc").limit(5).select((eb) => [jsonArrayFrom(eb.selectFrom("t${prev(prev(i))} as g").selectAll("g").whereRef("g.parent_id", "=", "c.id").where("g.flag", "=", true).limit(3)).as("children")])).as("children"),
    eb.selectFrom("t${prev(i)} as k").select((eb) => eb.fn.countAll<number>().as("n")).whereRef("k.parent_id", "=", "a.id").as("childCount"),
  ]),
] as const;`);
  }
  return lines.join("\n");
}

function drizzle(): string {
  const lines = [
    `import { and, count, desc, eq, gt, gte, isNull, max, notExists, relations, sql, sum } from "drizzle-orm";`,
    `import { integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";`,
    `import type { BetterSQLite3Database } from "drizzle-orm/better-sqlite3";`,
  ];
  for (const i of range) {
    lines.push(
      `export const t${i} = sqliteTable("t${i}", { id: integer("id").primaryKey(), parentId: integer("parent_id"), name: text("name").notNull(), status: text("status", { enum: ["a", "b", "c"] }).notNull(), amount: integer("amount").notNull(), price: text("price"), createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(), updatedAt: integer("updated_at", { mode: "timestamp_ms" }), flag: integer("flag", { mode: "boolean" }).notNull(), note: text("note"), score: real("score"), code: text("code").notNull() });`,
    );
  }
  for (const i of range) {
    lines.push(
      `export const r${i} = relations(t${i}, ({ one, many }) => ({ parent: one(t${next(i)}, { fields: [t${i}.parentId], references: [t${next(i)}.id] }), children: many(t${prev(i)}) }));`,
    );
  }
  lines.push(
    `const schema = { ${range.map((i) => `t${i}, r${i}`).join(", ")} };`,
    `declare const db: BetterSQLite3Database<typeof schema>;`,
  );
  for (const i of range) {
    const a = `t${i}`;
    const b = `t${next(i)}`;
    const c = `t${prev(i)}`;
    const g = `t${prev(prev(i))}`;
    lines.push(`export const q${i} = [
  db.select().from(${a}).innerJoin(${b}, eq(${b}.id, ${a}.parentId)).where(and(eq(${a}.status, "a"), gt(${b}.amount, 5))).orderBy(desc(${a}.createdAt)).limit(10),
  db.select({ status: ${a}.status, n: count(), total: sum(${a}.amount), last: max(${a}.createdAt) }).from(${a}).groupBy(${a}.status).having(gt(count(), 1)),
  db.select().from(${a}).where(notExists(db.select({ id: ${b}.id }).from(${b}).where(eq(${b}.parentId, ${a}.id)))),
  db.select({ id: ${a}.id, name: ${a}.name }).from(${a}).where(and(gte(${a}.amount, 1), isNull(${a}.note))),
  db.select({ n: count() }).from(${a}),
  db.select({ id: ${a}.id, line: sql<number>\`\${${a}.amount} * 3\`, score: sql<number>\`coalesce(\${${a}.score}, 0)\`, size: sql<number>\`case when \${${a}.amount} > 10 then 1 else 0 end\` }).from(${a}).where(gt(sql\`\${${a}.amount} + 1\`, 5)),
  db.select({ status: ${a}.status, revenue: sum(sql\`\${${a}.amount} * 2\`), flagged: count(sql\`case when \${${a}.flag} then 1 end\`) }).from(${a}).groupBy(${a}.status),
  db.query.${a}.findMany({ where: eq(${a}.status, "a"), with: { parent: true, children: { where: gt(${c}.amount, 5), orderBy: [desc(${c}.createdAt)], limit: 5, with: { children: { where: eq(${g}.flag, true), limit: 3 } } } }, extras: { childCount: sql<number>\`(select count(*) from \${${c}} where \${${c}.parentId} = \${${a}.id})\`.as("child_count") } }),
] as const;`);
  }
  return lines.join("\n");
}

interface Check {
  readonly seconds: number;
  readonly instantiations: number;
  readonly types: number;
}

function check(name: string): Check {
  const file = join(dir, `${name}.ts`);
  const args = [
    tsc,
    "--noEmit",
    "--extendedDiagnostics",
    "--strict",
    "--skipLibCheck",
    "--target",
    "es2022",
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    file,
  ];
  const out = execFileSync(process.execPath, args, { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 });
  const read = (label: string) => {
    const match = new RegExp(`${label}:\\s+([\\d.]+)`).exec(out);
    if (!match) throw new Error(`${name}: no ${label} in\n${out}`);
    return Number(match[1]);
  };
  return { seconds: read("Check time"), instantiations: read("Instantiations"), types: read("Types") };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
try {
  const sources = { tempest: tempest(), kysely: kysely(), drizzle: drizzle() };
  for (const [name, source] of Object.entries(sources)) writeFileSync(join(dir, `${name}.ts`), source);
  const runs: Record<string, Check[]> = { tempest: [], kysely: [], drizzle: [] };
  for (let round = 0; round < rounds; round++) {
    for (const name of Object.keys(sources)) {
      const result = check(name);
      runs[name]?.push(result);
      // Each check as it ends (stderr), so a long run on a loaded machine shows where it is.
      console.error(
        `round ${round + 1} ${name}: ${result.seconds.toFixed(2)} s, ${result.instantiations} instantiations, load ${loadavg()[0]?.toFixed(1)}`,
      );
    }
  }
  const times = Object.fromEntries(Object.entries(runs).map(([name, checks]) => [name, median(checks.map((c) => c.seconds))])) as Record<
    keyof typeof sources,
    number
  >;
  console.log(
    `type-check time, ${models} models x 12 columns x 8 queries (join, group by + aggregates + having, notExists, filtered select, count, expressions in columns/where, aggregates over expressions, relation load: parent + children (where/orderBy/limit) + their children (where/limit) + count of children), ${rounds === 1 ? "one round" : `median of ${rounds} interleaved rounds`}:`,
  );
  for (const [name, checks] of Object.entries(runs)) {
    const all = checks.map((c) => c.seconds.toFixed(2)).join(", ");
    const last = checks[checks.length - 1] as Check;
    console.log(
      `  ${name.padEnd(8)} ${(times[name as keyof typeof times] ?? 0).toFixed(2)} s${rounds > 1 ? ` (${all})` : ""}; ${last.instantiations} instantiations, ${last.types} types`,
    );
  }
  console.log(`  tempest / kysely  ${(times.tempest / times.kysely).toFixed(2)} (target <= 0.5)`);
  console.log(`  tempest / drizzle ${(times.tempest / times.drizzle).toFixed(2)} (target <= 0.5)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
