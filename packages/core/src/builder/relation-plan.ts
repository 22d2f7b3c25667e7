import type { RelationCount, RelationLoad, RelationPlan } from "../ast/relation-node.js";
import { relationCount, relationLoad, relationPlan } from "../ast/relation-node.js";
import type { SelectNode } from "../ast/statement-node.js";
import { ValidationError } from "../errors.js";
import type { ModelClass } from "../schema/model.js";
import type { RelationMeta } from "../schema/relation-meta.js";
import { relationOf } from "../schema/relation-meta.js";

/** The related select a `.with()` entry makes: its node and what it loads in turn. */
export interface RelatedSelect {
  readonly node: SelectNode;
  readonly plan: RelationPlan | undefined;
}

/** Runs a `.with()` entry's value (true, or a function of the related model's select) and reads the select it returns. */
export type MakeRelated = (model: ModelClass, value: unknown, where: string) => RelatedSelect;

/** The plan after `.with(spec)`: each named relation loaded by the select its value makes (a later entry replaces an earlier one). */
export function withLoads(node: SelectNode, previous: RelationPlan | undefined, spec: unknown, make: MakeRelated): RelationPlan {
  const where = `select(${node.table.model.name}).with`;
  const loads = new Map<string, RelationLoad>((previous?.loads ?? []).map((l) => [l.relation.name, l]));
  for (const [name, value] of entries(node, spec, where)) {
    const relation = ownedRelation(node, name, where);
    const related = make(relation.target.model, value, `${where}({ ${name} })`);
    loads.set(name, relationLoad(relation, related.node, related.plan));
  }
  return relationPlan([...loads.values()], previous?.counts ?? []);
}

/** The plan after `.withCount(spec)`: a count of each named to-many relation's rows (matching its where). */
export function withCounts(node: SelectNode, previous: RelationPlan | undefined, spec: unknown, make: MakeRelated): RelationPlan {
  const where = `select(${node.table.model.name}).withCount`;
  const counts = new Map<string, RelationCount>((previous?.counts ?? []).map((c) => [c.relation.name, c]));
  for (const [name, value] of entries(node, spec, where)) {
    const relation = ownedRelation(node, name, where);
    if (!relation.many) throw new ValidationError(`${where}({ ${name} }): counts a to-many relation; ${name} holds one row`);
    const related = make(relation.target.model, value, `${where}({ ${name} })`);
    const n = related.node;
    if (n.orderBy.length > 0 || n.limit !== undefined || n.offset !== undefined || related.plan !== undefined) {
      throw new ValidationError(`${where}({ ${name} }): a count takes a where only (no orderBy, limit, offset or with)`);
    }
    counts.set(name, relationCount(relation, n));
  }
  return relationPlan(previous?.loads ?? [], [...counts.values()]);
}

function entries(node: SelectNode, spec: unknown, where: string): [string, unknown][] {
  if (node.parts !== undefined) {
    throw new ValidationError(`${where}: loads relations of a select of one model, without an alias, joins or columns()`);
  }
  if (node.lock !== undefined) throw new ValidationError(`${where}: a relation load runs in a read-only snapshot and takes no row lock`);
  if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
    throw new ValidationError(`${where}: takes an object naming relations, { relation: true | (select) => select }`);
  }
  return Object.entries(spec);
}

function ownedRelation(node: SelectNode, name: string, where: string): RelationMeta {
  const relation = relationOf(node.table, name, where);
  if (!node.columns.includes(relation.key)) {
    throw new ValidationError(
      `${where}({ ${name} }): the select must include ${node.table.model.name}.${relation.key.field}, the relation's key`,
    );
  }
  return relation;
}
