import { registerDialect } from "tempest-db-js/dialect";
import { postgresJsDialect } from "./postgresjs-dialect.js";

// Importing the package makes `postgresjs://` URLs work with createEngine.
registerDialect(postgresJsDialect);

export { classifyPostgresJsError } from "./classify-postgresjs-error.js";
export { PostgresJsCompiler } from "./postgresjs-compiler.js";
export { postgresJsCapabilities, postgresJsDialect } from "./postgresjs-dialect.js";
export { driverUrl, PostgresJsDriver } from "./postgresjs-driver.js";
export { decodePostgresJs, encodePostgresJs, postgresJsTypes } from "./postgresjs-types.js";
export default postgresJsDialect;
