import type { DocBlock, Target } from "./doc-blocks.js";

/** Blocks joined into one program: a block and the `// ...` blocks that follow it. */
export interface DocProgram {
  readonly id: string;
  readonly file: string;
  readonly line: number;
  readonly code: string;
  /** Where each line of `code` comes from. */
  readonly origins: readonly { readonly file: string; readonly line: number }[];
  /** Empty for a types-only program. */
  readonly targets: readonly Target[];
}

/**
 * Groups the blocks of one file into programs. A block starts a program unless its first line is
 * `// ...`, in which case it is appended to the program before it. A continuation names no other
 * targets than its program's.
 */
export function docPrograms(blocks: readonly DocBlock[]): DocProgram[] {
  const programs: { file: string; line: number; lines: string[]; origins: { file: string; line: number }[]; targets: Target[] }[] = [];
  for (const block of blocks) {
    const last = programs[programs.length - 1];
    const blockLines = block.code.split("\n");
    const origins = blockLines.map((_, k) => ({ file: block.file, line: block.line + k }));
    if (block.continues) {
      if (!last || last.file !== block.file)
        throw new Error(`${block.file}:${block.line}: "// ..." continues nothing: no block before it in this file`);
      const own = block.typesOnly ? [] : block.targets;
      if (block.typesOnly !== (last.targets.length === 0) || (own.length > 0 && own.join() !== last.targets.join())) {
        throw new Error(
          `${block.file}:${block.line}: a continuation must run where its program runs (${last.targets.join(" ") || "types"})`,
        );
      }
      last.lines.push(...blockLines);
      last.origins.push(...origins);
      continue;
    }
    const targets: Target[] = block.typesOnly ? [] : block.targets.length > 0 ? [...block.targets] : ["sqlite"];
    programs.push({ file: block.file, line: block.line, lines: blockLines, origins, targets });
  }
  return programs.map((p) => ({
    id: `${p.file.replace(/[^A-Za-z0-9]+/g, "_")}_L${p.line}`,
    file: p.file,
    line: p.line,
    code: p.lines.join("\n"),
    origins: p.origins,
    targets: p.targets,
  }));
}
