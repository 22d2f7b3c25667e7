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

const FENCE = /^(\s*)```(ts|typescript)(?:\s+(.*))?$/;
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
    const indent = open[1] ?? "";
    const words = (open[3] ?? "").split(/\s+/).filter(Boolean);
    const targets: Target[] = [];
    let typesOnly = false;
    for (const word of words) {
      if (word === "types") typesOnly = true;
      else if ((TARGETS as readonly string[]).includes(word)) targets.push(word as Target);
      else throw new Error(`${file}:${i + 1}: unknown word "${word}" in the fence; use ${TARGETS.join(", ")} or types`);
    }
    if (typesOnly && targets.length > 0) throw new Error(`${file}:${i + 1}: a types block names no database`);
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && (lines[j] as string).trim() !== "```"; j++) body.push((lines[j] as string).slice(indent.length));
    if (j === lines.length) throw new Error(`${file}:${i + 1}: the block is never closed`);
    blocks.push({ file, line: i + 2, code: body.join("\n"), targets, typesOnly, continues: CONTINUATION.test(body[0] ?? "") });
    i = j;
  }
  return blocks;
}
