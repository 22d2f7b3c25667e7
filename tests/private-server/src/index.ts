export { freePort } from "./free-port.js";
export type { PostgresCluster, PostgresClusterOptions } from "./postgres-cluster.js";
export { initPostgresCluster } from "./postgres-cluster.js";
