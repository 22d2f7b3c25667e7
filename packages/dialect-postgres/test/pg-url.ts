export const PG_URL = process.env.TEMPEST_PG_URL ?? "postgresql://postgres@127.0.0.1:5432/test";
