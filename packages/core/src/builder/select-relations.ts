import type { JoinKind } from "../ast/query-node.js";
import { sourcesOf } from "../ast/query-node.js";
import type { SelectNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { ModelClass } from "../schema/model.js";
import { relationOf } from "../schema/relation-meta.js";
import { tableMeta } from "../schema/table-meta.js";
import type { RelatedSelect } from "./relation-plan.js";
import { select } from "./select.js";
import { SelectBuilder } from "./select-builder.js";

/**
 * A `.with()` / `.withCount()` entry's related select: the model's select, refined by the entry's
 * function (`true`: as it is). The select it returns must be the related model's.
 */
export function relatedSelect(model: ModelClass, value: unknown, where: string): RelatedSelect {
  const base = select(model);
  let made: unknown = base;
  if (typeof value === "function") made = value(base);
  else if (value !== true) throw new ValidationError(`${where}: takes true or a function of the related select`);
  if (!(made instanceof SelectBuilder)) throw new ValidationError(`${where}: the function must return the select it was given, refined`);
  const node = made.toNode() as SelectNode;
  if (node.table !== tableMeta(model)) throw new ValidationError(`${where}: the function must return a select of ${model.name}`);
  return { node, plan: SelectBuilder.planOf(made) };
}

/** What `innerJoinRelated` / `leftJoinRelated` join: the related model, and the two references its keys compare. */
export interface RelatedJoin {
  readonly model: ModelClass;
  readonly on: string;
  readonly equals: string;
}

/** Resolves `"owner.relation"` against the select's named sources into the join the declaration makes. */
export function relatedJoin(node: SelectNode, join: JoinKind, path: unknown, alias: string): RelatedJoin {
  const where = `${join}JoinRelated`;
  const dot = typeof path === "string" ? path.indexOf(".") : -1;
  if (dot < 0) throw new ValidationError(`${where}: takes "alias.relation", got ${JSON.stringify(path)}`);
  const owner = (path as string).slice(0, dot);
  const source = sourcesOf(node).find((s) => s.alias === owner);
  if (source === undefined) throw new ValidationError(`${where}(${JSON.stringify(path)}): the select names no source "${owner}"`);
  const relation = relationOf(source.table, (path as string).slice(dot + 1), `${where}(${JSON.stringify(path)})`);
  if (relation.through !== undefined) {
    throw new ValidationError(
      `${where}(${JSON.stringify(path)}): a many-to-many relation is joined through its join model; join ${relation.through.table.model.name}, then ${relation.target.model.name}`,
    );
  }
  return { model: relation.target.model, on: `${alias}.${relation.link.field}`, equals: `${owner}.${relation.key.field}` };
}
