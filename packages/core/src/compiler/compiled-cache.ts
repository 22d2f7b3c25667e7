import type { StatementNode } from "../ast/statement-node.js";
import type { CompiledQuery } from "./compiled-query.js";

/** Statements remembered strongly after their first compilation. */
const RECENT = 4;

/**
 * Compiled statements by AST node, for builders that are executed more than once. A statement is
 * kept weakly only from its second compilation on: putting every fresh statement into a WeakMap cost
 * the garbage collector more than compiling it (ephemerons), and most statements are built, run once
 * and dropped. The last few compilations are held strongly to notice the second one.
 */
export class CompiledCache {
  readonly #reused = new WeakMap<StatementNode, CompiledQuery>();
  /** [node, compiled] pairs, oldest overwritten first. */
  readonly #recent: unknown[] = new Array(RECENT * 2).fill(undefined);
  #next = 0;

  get(node: StatementNode): CompiledQuery | undefined {
    const reused = this.#reused.get(node);
    if (reused) return reused;
    const recent = this.#recent;
    for (let i = 0; i < recent.length; i += 2) {
      if (recent[i] === node) {
        const again = recent[i + 1] as CompiledQuery;
        this.#reused.set(node, again);
        return again;
      }
    }
    return undefined;
  }

  remember(node: StatementNode, compiled: CompiledQuery): void {
    this.#recent[this.#next] = node;
    this.#recent[this.#next + 1] = compiled;
    this.#next = (this.#next + 2) % this.#recent.length;
  }
}
