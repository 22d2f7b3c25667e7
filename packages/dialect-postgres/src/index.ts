import { registerDialect } from "tempest-db-js";
import { postgresDialect } from "./postgres-dialect.js";

registerDialect(postgresDialect);

export { postgresDialect, postgresCapabilities, classifyPostgresError } from "./postgres-dialect.js";
export { PostgresCompiler } from "./postgres-compiler.js";
export { PostgresDriver } from "./postgres-driver.js";
export default postgresDialect;
