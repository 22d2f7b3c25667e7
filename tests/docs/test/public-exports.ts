import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { docsCompilerOptions } from "./typecheck-programs.js";

/** Every name (values and types) a package entry point exports, as its published declarations say. */
export function publicExports(specifiers: readonly string[], dir: string): Map<string, string[]> {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "exports.ts");
  writeFileSync(file, specifiers.map((s, i) => `import * as m${i} from "${s}";\nexport { m${i} };`).join("\n"));
  const program = ts.createProgram([file], docsCompilerOptions);
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const result = new Map<string, string[]>();
  if (!source) return result;
  const imports = source.statements.filter(ts.isImportDeclaration);
  specifiers.forEach((specifier, i) => {
    const declaration = imports[i];
    const symbol = declaration && checker.getSymbolAtLocation(declaration.moduleSpecifier);
    result.set(
      specifier,
      symbol
        ? checker
            .getExportsOfModule(symbol)
            .map((s) => s.getName())
            .filter((name) => name !== "default")
        : [],
    );
  });
  return result;
}
