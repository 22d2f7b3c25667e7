import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import type { DocProgram } from "./doc-programs.js";

/** What a reader's strict project would use; types come from the packages' published .d.ts. */
export const docsCompilerOptions: ts.CompilerOptions = {
  strict: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  verbatimModuleSyntax: true,
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2023.d.ts"],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  moduleDetection: ts.ModuleDetectionKind.Force,
  types: ["node"],
  skipLibCheck: true,
  noEmit: true,
};

/**
 * Type-checks every program in one TypeScript program (fast: the libraries' types are read once)
 * and returns the diagnostics, each pointing at the Markdown line it came from.
 */
export function typecheckPrograms(programs: readonly DocProgram[], dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const byPath = new Map<string, DocProgram>();
  for (const program of programs) {
    const path = join(dir, `${program.id}.ts`);
    writeFileSync(path, program.code);
    byPath.set(path, program);
  }
  const checked = ts.createProgram([...byPath.keys()], docsCompilerOptions);
  return ts.getPreEmitDiagnostics(checked).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    const source = diagnostic.file;
    if (!source || diagnostic.start === undefined) return `TS${diagnostic.code}: ${message}`;
    const { line } = source.getLineAndCharacterOfPosition(diagnostic.start);
    const program = byPath.get(source.fileName);
    const origin = program?.origins[line];
    const where = origin ? `${origin.file}:${origin.line}` : `${relative(dir, source.fileName)}:${line + 1}`;
    return `${where}: TS${diagnostic.code}: ${message}`;
  });
}

/** Plain JavaScript for Node, one module per program, with a source map back to `fileName`. */
export function transpileProgram(code: string, fileName: string): string {
  return ts.transpileModule(code, {
    fileName,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true, inlineSourceMap: true },
  }).outputText;
}
