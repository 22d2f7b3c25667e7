import { readFileSync } from "node:fs";
import { relative } from "node:path";

/** The databases a block can run on. */
export const TARGETS = ["sqlite", "postgres", "mysql"] as const;
export type Target = (typeof TARGETS)[number];

/** One ```ts block of a Markdown file. */
export interface DocBlock {
  /** Path relative to the repository root, for messages. */
  readonly file: string;
  /** 1-based line of the first code line (the line after the fence). */
  readonly line: number;
  readonly code: string;
  /** Databases named in the fence (empty: the default). */
  readonly targets: readonly Target[];
  /** `types` in the fence: type-checked, never run. */
  readonly typesOnly: boolean;
  /** The first line is `// ...`: the block goes on from the previous one of the same file. */
  readonly continues: boolean;
}

/** Any fenced block: its indent, its backticks (three or more) and its info string. */
const FENCE = /^(\s*)(`{3,})\s*(.*)$/;
const CONTINUATION = /^\s*\/\/\s*\.\.\.\s*$/;

/**
 * The TypeScript blocks of a Markdown file. The fence's info string after `ts` may name targets
 * (`sqlite`, `postgres`, `mysql`) and `types`; anything else is an error, so a typo cannot make a
 * block silently skip a database.
 */
export function docBlocks(path: string, root: string): DocBlock[] {
  const file = relative(root, path);
  const lines = readFileSync(path, "utf8").split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] as string);
    if (!open) continue;
    const fenceLine = i + 1;
    const indent = open[1] ?? "";
    const ticks = open[2] ?? "```";
    const info = (open[3] ?? "").trim().split(/\s+/).filter(Boolean);
    // The block ends at a line of at least as many backticks and nothing else; blocks in other
    // languages, and fences shown inside longer fences, are skipped whole.
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const line = (lines[j] as string).trim();
      if (/^`{3,}$/.test(line) && line.length >= ticks.length) break;
      body.push((lines[j] as string).slice(indent.length));
    }
    if (j === lines.length) throw new Error(`${file}:${fenceLine}: the block is never closed`);
    const language = info[0];
    const words = info.slice(1);
    i = j;
    if (language !== "ts" && language !== "typescript") continue;
    const targets: Target[] = [];
    let typesOnly = false;
    for (const word of words) {
      if (word === "types") typesOnly = true;
      else if ((TARGETS as readonly string[]).includes(word)) targets.push(word as Target);
      else throw new Error(`${file}:${fenceLine}: unknown word "${word}" in the fence; use ${TARGETS.join(", ")} or types`);
    }
    if (typesOnly && targets.length > 0) throw new Error(`${file}:${fenceLine}: a types block names no database`);
    blocks.push({ file, line: fenceLine + 1, code: body.join("\n"), targets, typesOnly, continues: CONTINUATION.test(body[0] ?? "") });
  }
  return blocks;
}
