import { registerDialect } from "tempest-db-js/dialect";
import { postgresDialect } from "./postgres-dialect.js";

registerDialect(postgresDialect);

export { PostgresCompiler } from "./postgres-compiler.js";
export { classifyPostgresError, postgresCapabilities, postgresDialect } from "./postgres-dialect.js";
export { PostgresDriver } from "./postgres-driver.js";
export type { PostgresDriverOptions } from "./postgres-driver-options.js";
export default postgresDialect;
