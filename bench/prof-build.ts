import "@tempest-db-js/dialect-postgres";
import { createEngine, select, sql, update } from "tempest-db-js";
import { Outbound } from "./src/lib/models.js";
const engine = createEngine("postgresql://postgres@127.0.0.1:5432/test");
const claim = () =>
    update(Outbound)
      .set({ status: "sending", attempts: sql.raw("attempts + 1"), updatedAt: sql.now() })
      .where({ id: { in: select(Outbound).where({ status: "queued" }).orderBy("nextAttemptAt").limit(10).forUpdate({ skipLocked: true }).asSubquery("id") } })
      .returning();
const mode = process.argv[2] ?? "both";
let sink = 0;
for (let round = 0; round < 5; round++) {
  const t = performance.now();
  const N = 300000;
  for (let i = 0; i < N; i++) {
    if (mode === "build") { const b = claim(); sink += b ? 1 : 0; }
    else sink += engine.compile(claim()).sql.length;
  }
  console.log(mode, ((performance.now() - t) * 1000 / N).toFixed(3), "µs");
}
await engine.close();
