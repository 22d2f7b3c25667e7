import type { SchemaChange } from "tempest-db-js";
import type { TableFacts } from "./table-facts.js";

/**
 * The capability flags the lint reads (`engine.capabilities` has them). PostgreSQL's lock rules
 * apply where the database has `CREATE INDEX CONCURRENTLY` (`concurrentIndexes`): the database whose
 * DDL locks as the rules describe. MySQL/MariaDB are judged by their compiled statements instead
 * (`copiesTable`).
 */
export interface LockLintCapabilities {
  readonly concurrentIndexes?: boolean;
  readonly notValidConstraints?: boolean;
}

export interface LockLintOptions {
  readonly capabilities: LockLintCapabilities;
  /** Which live tables hold rows (`readTableFacts`); a table not listed is assumed to. */
  readonly facts: TableFacts;
  /**
   * Whether the statements a change compiles to copy the table (`SchemaStep.copiesTable` of
   * `schemaSteps(engine, change)`): MySQL/MariaDB's ALGORITHM=COPY.
   */
  readonly copiesTable?: (change: SchemaChange) => boolean;
  /** Throw a LockSafetyError listing every warning instead of returning them. */
  readonly warningsAsErrors?: boolean;
}
