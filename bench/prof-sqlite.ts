import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import "@tempest-db-js/dialect-sqlite";
import { createEngine, insert, select, sql } from "tempest-db-js";
import { Item } from "./src/lib/models.js";
const mode = process.argv[2] ?? "insert";
const dir = mkdtempSync(join(tmpdir(), "prof-sqlite-"));
const engine = createEngine(`sqlite://${join(dir, "t.db")}`);
await engine.execute(sql.raw(`CREATE TABLE bench_items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category TEXT NOT NULL, qty INTEGER NOT NULL, price REAL NOT NULL)`)).rowsAffected();
const n = 20000;
const rows = Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `item ${i + 1}`, category: `c${i % 10}`, qty: (i * 7919) % 1000, price: ((i * 31) % 10000) / 100 }));
for (let r = 0; r < 30; r++) {
  if (mode === "insert") {
    await engine.execute(sql.raw("DELETE FROM bench_items")).rowsAffected();
    const t = performance.now();
    await engine.transaction(async (tx) => { for (let i = 0; i < n; i += 100) await tx.execute(insert(Item).values(rows.slice(i, i + 100))).rowsAffected(); });
    if (r % 5 === 0) console.log("insert", (performance.now() - t).toFixed(1), "ms");
  } else {
    if (r === 0) await engine.transaction(async (tx) => { for (let i = 0; i < n; i += 100) await tx.execute(insert(Item).values(rows.slice(i, i + 100))).rowsAffected(); });
    const t = performance.now();
    for (let k = 0; k < 1000; k++) await engine.execute(select(Item).where({ id: (k * 7919) % n + 1 })).first();
    if (r % 5 === 0) console.log("lookups", (performance.now() - t).toFixed(2), "ms");
  }
}
await engine.close();
