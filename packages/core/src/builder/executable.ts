import type { StatementNode } from "../ast/statement-node.js";

const EXECUTABLE = Symbol.for("tempest-db-js.executable");

/** Anything `execute()` and `compile()` take. `R` is the row type the statement returns. */
export interface Executable<R = unknown> {
  toNode(): StatementNode;
  /**
   * Phantom: the row type, boxed so that `execute()` infers `never` (no rows) rather than
   * `undefined` from a statement without RETURNING.
   */
  readonly __row?: [R];
}

export function markExecutable(target: object): void {
  Object.defineProperty(target, EXECUTABLE, { value: true });
}

export function isExecutable(value: unknown): value is Executable {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[EXECUTABLE] === true;
}
