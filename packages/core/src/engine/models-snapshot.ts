import type { SqlCompiler } from "../compiler/sql-compiler.js";
import type { Dialect } from "../dialect/dialect.js";
import { requireIntrospector } from "../dialect/require-introspector.js";
import { ValidationError } from "../errors.js";
import type { ModelClass } from "../schema/model.js";
import type { SchemaSnapshot } from "../schema/schema-snapshot.js";
import { sortSnapshot } from "../schema/sort-snapshot.js";
import { storedTableMeta } from "../schema/table-meta.js";
import { Engine } from "./engine.js";

/**
 * What `createAll(models)` creates on this engine's (or dialect's) database, as a SchemaSnapshot
 * normalised exactly as `introspect` reads it back: the dialect's compiler writes each column type,
 * default and index predicate, and the dialect's introspector reads those texts with the rules it
 * reads its catalog by. Nothing connects. Given a dialect, the compiler is the one for the
 * capabilities the dialect assumes before a server has answered; given an engine that has already
 * run a statement, the one for its server.
 */
export function modelsSnapshot(engineOrDialect: Engine | Dialect, models: readonly ModelClass[]): SchemaSnapshot {
  const { dialect, compiler } = resolve(engineOrDialect);
  const introspector = requireIntrospector(dialect, "migrations");
  const seen = new Set<string>();
  const tables = models.map((model) => {
    const table = storedTableMeta(model, "modelsSnapshot");
    if (seen.has(table.name)) throw new ValidationError(`modelsSnapshot: two models create the table "${table.name}"`);
    seen.add(table.name);
    return introspector.modelTable(compiler.modelTableDdl(table), compiler.capabilities);
  });
  return sortSnapshot(dialect.name, tables);
}

function resolve(engineOrDialect: Engine | Dialect): { dialect: Dialect; compiler: SqlCompiler } {
  if (engineOrDialect instanceof Engine) {
    const access = engineOrDialect.schemaAccess();
    return { dialect: access.dialect, compiler: access.compiler() };
  }
  const dialect = engineOrDialect;
  if (typeof dialect !== "object" || dialect === null || typeof dialect.createCompiler !== "function") {
    throw new ValidationError("modelsSnapshot takes an engine or a dialect object");
  }
  // The capabilities a URL of the dialect's first scheme gets before any server has answered: no
  // connection is made, the URL is only read (a relative path for SQLite).
  const url = `${dialect.schemes[0] ?? "db"}://localhost/schema`;
  return { dialect, compiler: dialect.createCompiler(dialect.capabilitiesFor(url)) };
}
