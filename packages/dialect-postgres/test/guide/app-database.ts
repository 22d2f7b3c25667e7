import pg from "pg";
import { PG_URL } from "../pg-url.js";

/**
 * The guide connects to postgresql://app@localhost/app. Create that role and database (trust auth
 * here), so that its code runs exactly as written.
 */
export async function ensureAppDatabase(): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    const role = await admin.query("SELECT 1 FROM pg_roles WHERE rolname = 'app'");
    if (role.rowCount === 0) await admin.query("CREATE ROLE app LOGIN");
    const db = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'app'");
    if (db.rowCount === 0) await admin.query("CREATE DATABASE app OWNER app");
  } finally {
    await admin.end();
  }
}
