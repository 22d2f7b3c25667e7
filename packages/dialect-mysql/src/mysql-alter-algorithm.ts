import type { ColumnSnapshot, SchemaChange } from "tempest-db-js/dialect";
import type { MysqlCapabilities } from "./mysql-capabilities.js";
import { foreignKeyIndexDrops } from "./mysql-foreign-key-index.js";

/**
 * How InnoDB carries out an ALTER: `instant` changes only metadata, `inplace` rebuilds or builds an
 * index while reads and writes go on (LOCK=NONE), `copy` copies the table with writes blocked.
 * Ordered from best to worst; a statement of several actions takes its worst.
 */
export type AlterAlgorithm = "instant" | "inplace" | "copy";

const RANK: Record<AlterAlgorithm, number> = { instant: 0, inplace: 1, copy: 2 };

export function worst(algorithms: readonly AlterAlgorithm[]): AlterAlgorithm {
  return algorithms.reduce<AlterAlgorithm>((a, b) => (RANK[b] > RANK[a] ? b : a), "instant");
}

/**
 * The clause asking for `algorithm`, so that the server fails the statement rather than fall back to
 * a copy; none for a copy (the step is marked `copiesTable`). `index` is CREATE INDEX's spelling.
 */
export function algorithmClause(algorithm: AlterAlgorithm, index: boolean): string {
  if (algorithm === "copy") return "";
  if (algorithm === "instant") return index ? " ALGORITHM=INSTANT" : ", ALGORITHM=INSTANT";
  return index ? " ALGORITHM=INPLACE LOCK=NONE" : ", ALGORITHM=INPLACE, LOCK=NONE";
}

/**
 * The algorithm of each change other than alterColumn (see modifyAlgorithm), as measured on
 * MariaDB 10.11 (test/schema-changes.test.ts tries each) and as MySQL 8 documents it. undefined:
 * not an ALTER of an existing table (CREATE TABLE, DROP TABLE), which takes no clause.
 */
export function changeAlgorithm(
  change: SchemaChange,
  caps: MysqlCapabilities,
  typeOf: (side: "from" | "to") => string,
): AlterAlgorithm | undefined {
  switch (change.kind) {
    case "createTable":
    case "dropTable":
    case "rebuildTable":
    case "validateConstraint":
    case "addUniqueConstraint":
      return undefined;
    case "renameTable":
      return "instant";
    case "addColumn": {
      // A default the server computes per row (uuid(), the time) is written into every row: a copy.
      // So is a foreign key, which InnoDB adds in place only with foreign_key_checks off.
      const { column } = change;
      if (change.foreignKey || column.default?.kind === "sql" || column.default?.kind === "random" || column.generated?.stored) {
        return "copy";
      }
      if (column.unique) return "inplace";
      return caps.instantAddColumn ? "instant" : "inplace";
    }
    case "dropColumn":
      // Dropping an indexed column rebuilds its indexes.
      return caps.instantDropColumn && !change.column.unique && !change.keyed ? "instant" : "inplace";
    case "renameColumn":
      return caps.instantRenameColumn ? "instant" : "inplace";
    case "alterColumn":
      return modifyAlgorithm(change.from, change.to, typeOf);
    case "createIndex":
    case "dropIndex":
      return "inplace";
    case "addForeignKey":
    case "addCheck":
      return "copy";
    case "dropForeignKey":
      // Dropping the key's own index with it is not instant (error 1846: "Reason: DROP INDEX").
      if (foreignKeyIndexDrops(change, caps.indexIfNotExists).length > 0) return "inplace";
      return caps.instantDropConstraint ? "instant" : "inplace";
    case "dropCheck":
      return caps.instantDropConstraint ? "instant" : "inplace";
    default:
      return undefined;
  }
}

/**
 * MODIFY COLUMN from one definition to another. Instant: a default alone, enum members appended at
 * the end, a varchar grown within the same length-prefix size (InnoDB stores 1 byte of length up to
 * 255 bytes: 63 utf8mb4 characters). In place: nullability, UNIQUE. Any other type change copies
 * (int to bigint too, measured on MariaDB 10.11).
 */
export function modifyAlgorithm(from: ColumnSnapshot, to: ColumnSnapshot, typeOf: (side: "from" | "to") => string): AlterAlgorithm {
  const algorithms: AlterAlgorithm[] = [];
  if (from.unique !== to.unique) algorithms.push("inplace");
  if (from.notNull !== to.notNull) algorithms.push("inplace");
  if (typeOf("from") !== typeOf("to")) {
    if (from.kind === "enum" && to.kind === "enum") {
      const old = from.enumValues ?? [];
      const appended =
        (to.enumValues ?? []).slice(0, old.length).every((v, i) => v === old[i]) && (to.enumValues ?? []).length >= old.length;
      algorithms.push(appended ? "instant" : "copy");
    } else if (from.kind === "varchar" && to.kind === "varchar") {
      const before = (from.length ?? 255) * 4;
      const after = (to.length ?? 255) * 4;
      algorithms.push(after >= before && before > 255 === after > 255 ? "instant" : "copy");
    } else {
      algorithms.push("copy");
    }
  }
  return worst(algorithms);
}
