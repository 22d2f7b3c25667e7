/**
 * Which ALTERs the target database has, as far as the diff needs to know: a change the database
 * cannot make in place is planned as the table rebuild SQLite documents (`rebuildTable`). The
 * default is what PostgreSQL and MySQL/MariaDB have; SQLite's flags say otherwise.
 */
export interface AlterCapabilities {
  /** ALTER COLUMN: type, nullability, default, unique. */
  readonly alterColumn: boolean;
  /** ADD / DROP CONSTRAINT ... FOREIGN KEY on an existing table. */
  readonly alterForeignKeys: boolean;
  /** DROP COLUMN of a column outside any key, unique constraint or foreign key. */
  readonly dropColumn: boolean;
  /** DROP COLUMN of a primary-key, unique, foreign-key or enum (CHECK) column. */
  readonly dropConstrainedColumn: boolean;
  /** ADD COLUMN of a unique column, a NOT NULL one without a literal default, or one with an expression default. */
  readonly addConstrainedColumn: boolean;
  readonly renameColumn: boolean;
  /** The rebuild (new table, copy, drop, rename) for what ALTER cannot do; also how a primary key changes. */
  readonly rebuildTable: boolean;
}

export const fullAlterCapabilities: AlterCapabilities = Object.freeze({
  alterColumn: true,
  alterForeignKeys: true,
  dropColumn: true,
  dropConstrainedColumn: true,
  addConstrainedColumn: true,
  renameColumn: true,
  rebuildTable: false,
});

/** The flags a dialect declares (engine.capabilities) for the schema changes it compiles. */
export interface DialectAlterFlags {
  readonly alterColumn: boolean;
  readonly alterConstraints: boolean;
  readonly dropColumn: boolean;
  readonly renameColumn: boolean;
  readonly tableRebuild: boolean;
}

/**
 * What the diff may plan on a database, from its dialect's capability flags (`engine.capabilities`).
 * A database that cannot ALTER constraints (SQLite) cannot drop a column a key or constraint uses,
 * nor add one that carries a constraint, either: those become a rebuild.
 */
export function alterCapabilitiesOf(flags: DialectAlterFlags): AlterCapabilities {
  return Object.freeze({
    alterColumn: flags.alterColumn,
    alterForeignKeys: flags.alterConstraints,
    dropColumn: flags.dropColumn,
    dropConstrainedColumn: flags.dropColumn && flags.alterConstraints,
    addConstrainedColumn: flags.alterConstraints,
    renameColumn: flags.renameColumn,
    rebuildTable: flags.tableRebuild,
  });
}
