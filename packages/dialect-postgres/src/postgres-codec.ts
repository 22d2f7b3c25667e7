import type { ColumnMeta, ValueCodec } from "tempest-db-js/dialect";
import { decodePostgres, decodesAsIs, encodePostgres } from "./postgres-types.js";

/** PostgreSQL's value codec (see postgres-types for the encodings). */
export const postgresCodec: ValueCodec = Object.freeze({
  encode: encodePostgres,
  decode: decodePostgres,
  decodesAsIs,
  /** encodePostgres changes only JSON, bigints (to text) and byte arrays. */
  encodesAsIs: (column: ColumnMeta): boolean =>
    column.kind !== "json" && column.kind !== "bigint" && column.kind !== "numeric" && column.kind !== "bytes",
});
