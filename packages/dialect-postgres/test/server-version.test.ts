import pg from "pg";
import { expect, test } from "vitest";
import { PG_URL } from "./pg-url.js";

// The suite runs twice in CI: on the shared PostgreSQL 15 and on a private PostgreSQL 18 that
// vitest.pg18.config.ts starts (it sets TEMPEST_PG_VERSION). This proves which server answered.
test("the suite talks to the server it was started for", async () => {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string; num: string }>(
      "SELECT current_setting('server_version') AS server_version, current_setting('server_version_num') AS num",
    );
    const row = rows[0] as { server_version: string; num: string };
    expect(Number(row.num)).toBeGreaterThanOrEqual(150_000);
    expect(row.server_version).toBe(process.env.TEMPEST_PG_VERSION ?? row.server_version);
    if (process.env.TEMPEST_PG_VERSION !== undefined) expect(Number(row.num)).toBeGreaterThanOrEqual(180_000);
  } finally {
    await client.end();
  }
});
