import type { ColumnMeta, ValueCodec } from "tempest-db-js/dialect";
import { decodeMysql, decodesAsIs, encodeMysql } from "./mysql-types.js";

/** MySQL/MariaDB's value codec (see mysql-types for the encodings); the same for both servers. */
export const mysqlCodec: ValueCodec = Object.freeze({
  encode: encodeMysql,
  decode: decodeMysql,
  decodesAsIs,
  /** encodeMysql changes only JSON, uuids (to lower case), Dates and byte arrays. */
  encodesAsIs: (column: ColumnMeta): boolean => column.kind !== "json" && column.kind !== "uuid",
});
