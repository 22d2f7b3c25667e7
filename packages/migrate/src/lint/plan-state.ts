import type { SchemaChange } from "tempest-db-js";
import type { TableFacts } from "./table-facts.js";

/**
 * What the lint knows at one point of a plan: whether a table holds rows (the facts for live
 * tables, unknown ones assumed to; a table the plan creates starts empty), and which columns a
 * validated `IS NOT NULL` check already proves (SET NOT NULL then skips its scan).
 */
export class PlanState {
  readonly #facts: TableFacts;
  readonly #liveName = new Map<string, string>();
  readonly #created = new Set<string>();
  /** check name (per table) → the column it proves, once validated. */
  readonly #checks = new Map<string, { column: string; valid: boolean }>();

  constructor(facts: TableFacts) {
    this.#facts = facts;
  }

  hasRows(table: string): boolean {
    if (this.#created.has(table)) return false;
    const live = this.#liveName.get(table) ?? table;
    return Object.hasOwn(this.#facts, live) ? (this.#facts[live]?.hasRows ?? true) : true;
  }

  provenNotNull(table: string, column: string): boolean {
    for (const [key, check] of this.#checks) if (key.startsWith(`${table}\u0000`) && check.column === column && check.valid) return true;
    return false;
  }

  follow(change: SchemaChange): void {
    switch (change.kind) {
      case "createTable":
        this.#created.add(change.table.name);
        break;
      case "renameTable":
        if (this.#created.delete(change.from)) this.#created.add(change.to);
        else this.#liveName.set(change.to, this.#liveName.get(change.from) ?? change.from);
        break;
      case "addCheck":
        this.#checks.set(`${change.table}\u0000${change.name}`, { column: change.notNullOf, valid: !change.notValid });
        break;
      case "validateConstraint": {
        const check = this.#checks.get(`${change.table}\u0000${change.name}`);
        if (check) check.valid = true;
        break;
      }
      case "dropCheck":
        this.#checks.delete(`${change.table}\u0000${change.name}`);
        break;
      default:
        break;
    }
  }
}
