import { query, startEmbeddedPostgres } from "./embedded-postgres.js";

/**
 * vitest globalSetup: starts the embedded PostgreSQL before any test file runs and points
 * TEMPEST_PG_URL at a fresh `test` database on it (test workers inherit the environment), and
 * stops it when the run ends. TEMPEST_PG_VERSION tells the tests which server answers.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const server = await startEmbeddedPostgres();
  try {
    await query(server.port, "postgres", "CREATE DATABASE test");
  } catch (error) {
    // No teardown is returned: stop the server here, or it outlives the run and holds its port.
    await server.stop();
    throw error;
  }
  process.env.TEMPEST_PG_URL = server.url("test");
  process.env.TEMPEST_PG_VERSION = server.version;
  console.log(`embedded PostgreSQL ${server.version} on port ${server.port}`);
  return () => server.stop();
}
