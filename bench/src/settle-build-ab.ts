/**
 * CPU of building and compiling the queue settle (update ... set status, sql.now() where id in 50 ids) in
 * this checkout against another built one, interleaved, in process CPU time (steadier than wall time on a
 * loaded machine): `tsx src/settle-build-ab.ts [compile|build]` with the other checkout at /work/wt-drain-base.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

async function load(root: string) {
  const at = (p: string) => pathToFileURL(join(root, "packages", p, "dist", "index.js")).href;
  const core = await import(at("core"));
  for (const d of ["dialect-postgres", "dialect-mysql", "dialect-sqlite"]) await import(at(d));
  return core;
}
const builds = {
  before: await load(process.env.BEFORE ?? "/work/wt-drain-base"),
  after: await load(new URL("../..", import.meta.url).pathname),
};
const what = process.argv[2] ?? "compile";
for (const url of ["postgres://postgres@127.0.0.1:5432/drain", "mysql://root@127.0.0.1:3306/drain", "sqlite://:memory:"]) {
  const res = { before: [] as number[], after: [] as number[] };
  const setups = Object.entries(builds).map(([label, core]: [string, any]) => {
    const { Model, column } = core;
    class Job extends Model {
      static tablename = "bench_micro";
      static naming = "snake_case";
      id = column.uuid().primaryKey();
      consumer = column.text().notNull();
      status = column.enum("queued", "sending", "sent", "failed").notNull();
      attempts = column.integer().notNull().default(0);
      updatedAt = column.datetime();
    }
    const engine = core.createEngine(url);
    const ids = Array.from({ length: 50 }, () => randomUUID());
    const build = () =>
      core
        .update(Job)
        .set({ status: "sent", updatedAt: core.sql.now() })
        .where({ id: core.op.in(ids), status: "sending", attempts: 1 });
    return { label, engine, run: what === "build" ? build : () => engine.compile(build()) };
  });
  for (const s of setups) for (let i = 0; i < 3000; i++) s.run();
  for (let round = 0; round < 8; round++)
    for (const s of round % 2 ? [...setups].reverse() : setups) {
      const c = process.cpuUsage();
      for (let i = 0; i < 4000; i++) s.run();
      const u = process.cpuUsage(c);
      res[s.label as keyof typeof res].push((u.user + u.system) / 4000);
    }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)] ?? Number.NaN;
  console.log(
    url.split(":")[0],
    `${what} of the settle (50 ids), CPU: before ${med(res.before).toFixed(1)} µs, after ${med(res.after).toFixed(1)} µs`,
  );
  for (const s of setups) await s.engine.close();
}
