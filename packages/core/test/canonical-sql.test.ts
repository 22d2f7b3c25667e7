import { describe, expect, it } from "vitest";
import { canonicalSql } from "../src/index.js";

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const canon = (text: string) => canonicalSql(text, { quote });

describe("canonicalSql", () => {
  it("gives a compiled predicate and PostgreSQL's deparsed one the same spelling", () => {
    expect(canon(`"status" = 'pending'`)).toBe(`"status" = 'pending'`);
    expect(canon(`((a IS NOT NULL) AND (b = 1))`)).toBe(canon(`"a" IS NOT NULL AND "b" = 1`));
    expect(canon(`((a IS NOT NULL) AND (b = 1))`)).toBe(`"a" IS NOT NULL AND "b" = 1`);
  });

  it("keeps the parentheses precedence needs, and only those", () => {
    expect(canon(`(a OR b) AND c`)).toBe(`("a" OR "b") AND "c"`);
    expect(canon(`a OR (b AND c)`)).toBe(`"a" OR "b" AND "c"`);
    expect(canon(`x - (y - z)`)).toBe(`"x" - ("y" - "z")`);
    expect(canon(`(x - y) - z`)).toBe(`"x" - "y" - "z"`);
    expect(canon(`NOT (a AND b)`)).toBe(`NOT ("a" AND "b")`);
  });

  it("lower-cases functions, capitalises keywords, keeps string literals as written", () => {
    expect(canon(`STRFTIME('%Y-%m-%dT%H:%M:%fZ','now')`)).toBe(`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`);
    expect(canon(`a is not null and b in ('x', 'it''s')`)).toBe(`"a" IS NOT NULL AND "b" IN ('x', 'it''s')`);
    expect(canon(`current_timestamp`)).toBe("CURRENT_TIMESTAMP");
    expect(canon(`-1`)).toBe("-1");
  });

  it("prints what it cannot parse token by token, with the same spacing rules", () => {
    expect(canon(`CASE WHEN a THEN 1 END`)).toBe(`CASE WHEN "a" THEN 1 END`);
    expect(canon(`case  when a then 1 end`)).toBe(canon(`CASE WHEN a THEN 1 END`));
  });

  it("lets a dialect rewrite nodes (here: drop casts)", () => {
    const text = canonicalSql(`(status = 'pending'::text)`, { quote, rewrite: (n) => (n.t === "cast" ? n.operand : n) });
    expect(text).toBe(`"status" = 'pending'`);
  });
});
