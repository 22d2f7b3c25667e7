import { registerDialect } from "tempest-db-js";
import { mysqlDialect } from "./mysql-dialect.js";

registerDialect(mysqlDialect);

export { mysqlDialect } from "./mysql-dialect.js";
export { MysqlCompiler } from "./mysql-compiler.js";
export { MysqlDriver } from "./mysql-driver.js";
export { mysqlCapabilities, asMysqlCapabilities } from "./mysql-capabilities.js";
export type { MysqlCapabilities } from "./mysql-capabilities.js";
export { parseServerVersion, MARIADB_10_11, MYSQL_8_0 } from "./mysql-server-version.js";
export type { MysqlServerVersion } from "./mysql-server-version.js";
export { classifyMysqlError } from "./classify-mysql-error.js";
export default mysqlDialect;
