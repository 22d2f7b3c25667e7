import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, test } from "vitest";

const src = join(import.meta.dirname, "..", "src");

/** Every string and template literal of a file, with its text. */
function literals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push(node.text);
    else if (ts.isTemplateExpression(node)) found.push(node.head.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

const CONTROL = /^\s*(BEGIN|START TRANSACTION|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b/i;

describe("transaction control statements", () => {
  test("come only from compiler hooks: no other part of core spells one", () => {
    const outside = files(src)
      .filter((file) => !relative(src, file).startsWith("compiler/"))
      .flatMap((file) =>
        literals(file)
          .filter((text) => CONTROL.test(text))
          .map((text) => `${relative(src, file)}: ${text}`),
      );
    expect(outside, "ask the compiler (beginStatements, commitSql, rollbackSql, savepointSql, ...)").toEqual([]);
  });

  test("the check reads the compiler's own (it is not vacuous)", () => {
    const compiler = literals(join(src, "compiler", "sql-compiler.ts"));
    expect(compiler).toContain("COMMIT");
    expect(compiler).toContain("ROLLBACK");
  });
});
