import type { ScaleTable } from "./scale-schema.js";
import { STATUSES, scaleTables } from "./scale-schema.js";

/**
 * The generate-scale schema as a drizzle user keeps it: one `schema.ts` of pg-core table
 * definitions, which drizzle-kit loads itself. Names are PostgreSQL's own (`_fkey`, `_check`) and
 * the library's index names, so the definitions describe the tables `createAll` made. What pg-core
 * cannot say: the `COLLATE "C"` tempest puts on text columns (drizzle-kit neither writes nor reads a
 * column collation).
 */
export function drizzleSchemaSource(n: number, changed: boolean): string {
  const lines = [
    `import { sql } from "drizzle-orm";`,
    `import { boolean, check, foreignKey, index, integer, jsonb, numeric, pgTable, text, timestamp, uniqueIndex, varchar } from "drizzle-orm/pg-core";`,
    "",
  ];
  for (const t of scaleTables(n, changed)) lines.push(tableSource(t), "");
  return lines.join("\n");
}

function tableSource(t: ScaleTable): string {
  const statuses = STATUSES.map((s) => `'${s}'::text`).join(", ");
  const extras = [
    `index("${t.name}_created_at_idx").on(t.createdAt)`,
    `index("${t.name}_parent_status_idx").on(t.parentId, t.status)`,
    ...(t.liveCodeUnique ? [`uniqueIndex("${t.name}_live_code_key").on(t.code).where(sql\`deleted_at IS NULL\`)`] : []),
    `check("${t.name}_status_check", sql\`status = ANY (ARRAY[${statuses}])\`)`,
    ...(t.parent === null
      ? []
      : [`foreignKey({ name: "${t.name}_parent_id_fkey", columns: [t.parentId], foreignColumns: [${t.parent}.id] })`]),
  ];
  return `export const ${t.name} = pgTable(
  "${t.name}",
  {
    id: integer("id").primaryKey(),
    parentId: integer("parent_id"),
    code: varchar("code", { length: 64 }).notNull(),
    title: text("title"),
    status: text("status").notNull().default("draft"),
    amount: numeric("amount", { precision: 12, scale: 2 }),
    active: boolean("active").notNull().default(true),
    payload: jsonb("payload"),
    createdAt: timestamp("created_at", { precision: 3, withTimezone: true }).notNull(),
    deletedAt: timestamp("deleted_at", { precision: 3, withTimezone: true }),${t.addsNote ? `\n    note: text("note"),` : ""}
  },
  (t) => [
    ${extras.join(",\n    ")},
  ],
);`;
}
