import { registerDialect } from "tempest-db-js/dialect";
import { sqliteDialect } from "./sqlite-dialect.js";

registerDialect(sqliteDialect);

export { SqliteCompiler } from "./sqlite-compiler.js";
export { capabilitiesForVersion, classifySqliteError, sqliteCapabilities, sqliteDialect } from "./sqlite-dialect.js";
export type { SqliteDriverOptions } from "./sqlite-driver.js";
export { SqliteDriver } from "./sqlite-driver.js";
export { decodeSqlite, encodeSqlite } from "./sqlite-types.js";
export type { SqliteTarget } from "./sqlite-url.js";
export { parseSqliteUrl } from "./sqlite-url.js";
export default sqliteDialect;
