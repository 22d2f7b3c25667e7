// Dev aid, not part of the suite: prints a dialect's conformance expectations as TypeScript.
// Run from a dialect package: DIALECT_URL=... npx vitest run --root . ../../scripts/print-conformance.test.ts

import { createEngine } from "tempest-db-js";
import { describeConformanceSql } from "tempest-db-js/testing";
import { it } from "vitest";

function literal(value: unknown): string {
  if (value instanceof Date) return `new Date(${JSON.stringify(value.toISOString())})`;
  if (typeof value === "bigint") return `${value}n`;
  if (Buffer.isBuffer(value)) return `Buffer.from(${JSON.stringify([...value])})`;
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
  return JSON.stringify(value);
}

it("prints", async () => {
  const { DIALECT_MODULE, DIALECT_URL } = process.env;
  await import(DIALECT_MODULE as string);
  const out = describeConformanceSql(createEngine(DIALECT_URL as string));
  const lines = Object.entries(out).map(([id, e]) =>
    "unsupported" in e
      ? `  ${JSON.stringify(id)}: { unsupported: ${JSON.stringify(e.unsupported)} },`
      : `  ${JSON.stringify(id)}: {\n    sql: ${JSON.stringify(e.sql)},\n    params: ${literal(e.params)},\n  },`,
  );
  console.log(`BEGIN\n{\n${lines.join("\n")}\n}\nEND`);
});
