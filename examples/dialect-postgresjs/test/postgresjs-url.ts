/** The test server of TEMPEST_PG_URL, under this dialect's own scheme. */
export const POSTGRESJS_URL = (process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test").replace(
  /^[a-z]+:/i,
  "postgresjs:",
);
