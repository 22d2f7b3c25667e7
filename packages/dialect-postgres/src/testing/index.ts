export { postgresConformanceSql } from "./postgres-conformance-sql.js";
