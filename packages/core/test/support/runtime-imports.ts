import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** One runtime import between two files of core's src/, both relative to src/ ("schema/column.ts"). */
export interface RuntimeImport {
  from: string;
  to: string;
}

/**
 * Every runtime import between core's own files: what stays in the JavaScript tsc emits. Each file is
 * transpiled with the project's verbatimModuleSyntax, so `import type` disappears exactly as it does
 * in dist/, while `import { type A }` stays as the side-effect import `import {} from` that it
 * becomes there, and a dynamic `import()` counts too.
 */
export function runtimeImports(srcDir: string): RuntimeImport[] {
  const result: RuntimeImport[] = [];
  for (const file of sourceFiles(srcDir)) {
    const emitted = ts.transpileModule(readFileSync(file, "utf8"), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    }).outputText;
    for (const specifier of moduleSpecifiers(ts.createSourceFile(`${file}.js`, emitted, ts.ScriptTarget.ES2022, true))) {
      if (!specifier.startsWith(".")) continue; // node: built-ins; core imports no package at run time
      const target = resolve(dirname(file), specifier.replace(/\.js$/, ".ts"));
      result.push({ from: relative(srcDir, file), to: relative(srcDir, target) });
    }
  }
  return result;
}

function moduleSpecifiers(source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      // A computed import() cannot be placed in a layer: make it fail rather than pass unseen.
      found.push(argument && ts.isStringLiteralLike(argument) ? argument.text : "./<computed import()>");
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}
