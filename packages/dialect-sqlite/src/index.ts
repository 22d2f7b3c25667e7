import { registerDialect } from "tempest-db-js";
import { sqliteDialect } from "./sqlite-dialect.js";

registerDialect(sqliteDialect);

export { sqliteDialect, sqliteCapabilities, classifySqliteError, capabilitiesForVersion } from "./sqlite-dialect.js";
export { SqliteCompiler } from "./sqlite-compiler.js";
export { SqliteDriver } from "./sqlite-driver.js";
export type { SqliteDriverOptions } from "./sqlite-driver.js";
export { parseSqliteUrl } from "./sqlite-url.js";
export type { SqliteTarget } from "./sqlite-url.js";
export { encodeSqlite, decodeSqlite } from "./sqlite-types.js";
export default sqliteDialect;
