import type { Dialect, DialectCapabilities, DriverConnection } from "tempest-db-js/dialect";
import { DIALECT_CONTRACT_VERSION } from "tempest-db-js/dialect";
import { classifyMysqlError } from "./classify-mysql-error.js";
import { asMysqlCapabilities, mysqlCapabilities } from "./mysql-capabilities.js";
import { mysqlCodec } from "./mysql-codec.js";
import { MysqlCompiler } from "./mysql-compiler.js";
import { MysqlDriver } from "./mysql-driver.js";
import { mysqlIntrospector } from "./mysql-introspector.js";
import { mysqlMigrationSupport } from "./mysql-migration-support.js";
import { assumedServer, parseServerVersion } from "./mysql-server-version.js";

/**
 * One dialect for both servers. The URL scheme gives the assumption used before connecting
 * (`engine.compile` works offline); the first connection reads `VERSION()` and the capability
 * table is rebuilt for the server that actually answers.
 */
export const mysqlDialect: Dialect = {
  contractVersion: DIALECT_CONTRACT_VERSION,
  name: "MySQL",
  schemes: ["mysql", "mariadb"],
  capabilitiesFor: (url) => mysqlCapabilities(assumedServer(url)),
  createCompiler: (capabilities) => new MysqlCompiler(capabilities),
  codec: mysqlCodec,
  createDriver: (config) => new MysqlDriver(config),
  classifyError: classifyMysqlError,
  introspector: mysqlIntrospector,
  migrationSupport: mysqlMigrationSupport,
  inspectServer: async (connection: DriverConnection, assumed: DialectCapabilities) => {
    const { rows } = await connection.query({ sql: "SELECT VERSION()", params: [], rowMode: "array" });
    const text = (rows[0] as unknown[] | undefined)?.[0];
    const server = typeof text === "string" ? parseServerVersion(text) : undefined;
    return server ? mysqlCapabilities(server) : asMysqlCapabilities(assumed);
  },
};
