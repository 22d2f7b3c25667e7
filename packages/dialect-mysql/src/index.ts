import { registerDialect } from "tempest-db-js/dialect";
import { mysqlDialect } from "./mysql-dialect.js";

registerDialect(mysqlDialect);

export { classifyMysqlError } from "./classify-mysql-error.js";
export type { MysqlCapabilities } from "./mysql-capabilities.js";
export { asMysqlCapabilities, mysqlCapabilities } from "./mysql-capabilities.js";
export { MysqlCompiler } from "./mysql-compiler.js";
export { mysqlDialect } from "./mysql-dialect.js";
export { MysqlDriver } from "./mysql-driver.js";
export type { MysqlServerVersion } from "./mysql-server-version.js";
export { MARIADB_10_11, MYSQL_8_0, parseServerVersion } from "./mysql-server-version.js";
export default mysqlDialect;
