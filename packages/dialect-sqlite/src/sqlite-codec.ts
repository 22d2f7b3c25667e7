import type { ValueCodec } from "tempest-db-js/dialect";
import { decodeSqlite, decodesAsIs, encodeSqlite, encodesAsIs } from "./sqlite-types.js";

/** SQLite's value codec (see sqlite-types for the encodings). */
export const sqliteCodec: ValueCodec = Object.freeze({
  encode: encodeSqlite,
  decode: decodeSqlite,
  encodesAsIs,
  decodesAsIs,
});
