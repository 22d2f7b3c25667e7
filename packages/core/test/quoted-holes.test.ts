import { describe, expect, test } from "vitest";
import { quotedHoles } from "../src/expression/quoted-holes.js";
import { sql, ValidationError } from "../src/index.js";

const v = "S3CRET-value";

describe("sql.expr holes inside quotes or comments are refused at build time", () => {
  test.each([
    ["a single-quoted string", () => sql.expr`status = '${v}'`],
    ["a single-quoted string", () => sql.expr`note LIKE '%${v}%'`],
    ["a single-quoted string", () => sql.expr`a = 'it''s ${v}'`],
    ["a double-quoted name", () => sql.expr`"${v}" = 1`],
    ["a backquoted name", () => sql.expr`\`${v}\` = 1`],
    ["a line comment", () => sql.expr`a = 1 -- ${v}`],
    ["a block comment", () => sql.expr`a = 1 /* ${v} */`],
  ])("inside %s", (place, make) => {
    expect(make).toThrow(ValidationError);
    expect(make).toThrow(new RegExp(`value #1 sits inside ${place}.*Remove the quotes`));
    // The message names the hole, never its value.
    expect(make).toThrow(expect.objectContaining({ message: expect.not.stringContaining(v) }));
  });

  test("holes in code are fine, also after closed quotes, comments and doubled quotes", () => {
    expect(() => sql.expr`a = ${v}`).not.toThrow();
    expect(() => sql.expr`a = 'it''s' || ${v}`).not.toThrow();
    expect(() => sql.expr`note LIKE '%' || ${v} || '%'`).not.toThrow();
    expect(() => sql.expr`"col" = ${v} /* c */ AND b = ${v}`).not.toThrow();
    expect(() => sql.expr`a = 1 -- c\n AND b = ${v}`).not.toThrow();
    expect(() => sql.expr`\`x\` = ${v}`).not.toThrow();
  });

  test("an expression inside quotes is pasted as text, which may be meant, and is let through", () => {
    expect(() => sql.expr`a = '${sql.raw("x")}'`).not.toThrow();
  });

  test("what the dialects read differently is not judged (backslash escapes, dollar quoting)", () => {
    expect(quotedHoles(["a = 'x\\' ", ""])).toEqual([]);
    expect(quotedHoles(["a = $$x ", " $$"])).toEqual([]);
    expect(() => sql.expr`a = E'\\'' || ${v}`).not.toThrow();
  });

  test("the second hole is named when it is the quoted one", () => {
    expect(() => sql.expr`a = ${v} AND b = '${v}'`).toThrow(/value #2 sits inside a single-quoted string/);
  });
});
