import type { ValueCodec } from "tempest-db-js/dialect";
import { decodePostgresJs, decodesAsIs, encodePostgresJs } from "./postgresjs-types.js";

/** How values travel through postgres.js (see postgresjs-types). */
export const postgresJsCodec: ValueCodec = Object.freeze({
  encode: encodePostgresJs,
  decode: decodePostgresJs,
  decodesAsIs,
  /** Every value goes through encodePostgresJs, even in bulk inserts. */
  encodesAsIs: () => false,
});
