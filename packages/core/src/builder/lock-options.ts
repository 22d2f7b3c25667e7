import type { LockClause, SelectNode } from "../ast/statement-node.js";
import { lockClause } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { ModelClass } from "../schema/model.js";
import { tableMeta } from "../schema/table-meta.js";
import { scopeOf } from "./query-scope.js";

export type LockTarget = string | ModelClass;

export interface ForUpdateOptions {
  /** Skip rows another transaction has locked instead of waiting for them. */
  skipLocked?: boolean;
  /** Fail at once instead of waiting for a locked row. */
  noWait?: boolean;
  /** Restrict the lock to these tables (names or model classes), or in a join to these aliases. */
  of?: readonly LockTarget[];
}

/** The lock clause forUpdate / forShare ask for, checked against the select's tables or aliases. */
export function resolveLock(node: SelectNode, strength: LockClause["strength"], options: ForUpdateOptions): LockClause {
  if (typeof options !== "object" || options === null) throw new ValidationError("forUpdate/forShare take an options object");
  for (const key of Object.keys(options)) {
    if (key !== "skipLocked" && key !== "noWait" && key !== "of")
      throw new ValidationError(`for${strength === "update" ? "Update" : "Share"}: unknown option "${key}"`);
  }
  if (options.skipLocked && options.noWait) throw new ValidationError("skipLocked and noWait cannot be combined");
  const wait = options.skipLocked ? "skipLocked" : options.noWait ? "noWait" : "wait";
  if (options.of === undefined) return LOCKS[strength][wait];
  if (!Array.isArray(options.of)) throw new ValidationError("lock of: expects an array of tables or aliases");
  const scope = scopeOf(node);
  const named = "sources" in scope ? scope.sources : undefined;
  const table = node.table.name;
  const of = options.of.map((target) => {
    if (named) {
      if (typeof target === "string" && named.some((s) => s.alias === target)) return target;
      throw new ValidationError(
        `lock of: ${JSON.stringify(typeof target === "string" ? target : target?.name)} is not an alias of this query (${named.map((s) => s.alias).join(", ")})`,
      );
    }
    const name = typeof target === "string" ? target : tableMeta(target).name;
    if (name !== table) throw new ValidationError(`lock of: "${name}" is not a table of this query (${table})`);
    return name;
  });
  return lockClause(strength, wait, of);
}

/*
 * Clause nodes that depend only on the model and the options are frozen values, shared by every
 * query that asks for them instead of being allocated per builder call.
 */
const LOCKS = {
  update: {
    wait: lockClause("update", "wait", []),
    skipLocked: lockClause("update", "skipLocked", []),
    noWait: lockClause("update", "noWait", []),
  },
  share: {
    wait: lockClause("share", "wait", []),
    skipLocked: lockClause("share", "skipLocked", []),
    noWait: lockClause("share", "noWait", []),
  },
} as const;
