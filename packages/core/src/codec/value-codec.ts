import type { ColumnMeta } from "../schema/column-meta.js";

/**
 * How values travel between JavaScript and one dialect's driver, per column kind. A dialect provides
 * one codec (`Dialect.codec`); its compiler encodes bound values with it and the engine decodes rows
 * with it. It depends on nothing the server tells after connecting, so rows decode the same before
 * and after `inspectServer` replaces the compiler.
 */
export interface ValueCodec {
  /** A JavaScript value into what the driver binds. `column` is undefined for a free value (raw SQL, a pattern). */
  encode(value: unknown, column: ColumnMeta | undefined): unknown;
  /** A non-null driver value into the column's JavaScript type. */
  decode(value: unknown, column: ColumnMeta): unknown;
  /**
   * True when `encode` returns this column's non-object values (strings, numbers, booleans, bigints)
   * and null unchanged, so a bulk insert can bind them without the call.
   */
  encodesAsIs(column: ColumnMeta): boolean;
  /** True when the driver already delivers this column's JavaScript value, so decoding can skip it. */
  decodesAsIs(column: ColumnMeta): boolean;
}

/** A codec for a driver that binds and returns every JavaScript value as it is. */
export const passThroughCodec: ValueCodec = Object.freeze({
  encode: (value: unknown) => value,
  decode: (value: unknown) => value,
  encodesAsIs: () => true,
  decodesAsIs: () => true,
});
