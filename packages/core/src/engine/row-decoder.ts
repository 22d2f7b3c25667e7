import type { ValueCodec } from "../codec/value-codec.js";
import type { ColumnMeta } from "../schema/column-meta.js";

export type RowDecoder = (row: readonly unknown[]) => Record<string, unknown>;

const decoders = new WeakMap<ValueCodec, WeakMap<readonly ColumnMeta[], RowDecoder>>();

/**
 * The decoder for one row shape, built once per (dialect codec, column list) and reused for every
 * row after: no per-row reflection. Columns whose driver value already is the JavaScript value skip
 * the codec entirely. The codec is the dialect's, not the compiler's: the engine replaces its compiler
 * once the server is inspected, and the decoders built before stay valid.
 */
export function rowDecoder(codec: ValueCodec, columns: readonly ColumnMeta[]): RowDecoder {
  let byShape = decoders.get(codec);
  if (!byShape) {
    byShape = new WeakMap();
    decoders.set(codec, byShape);
  }
  const cached = byShape.get(columns);
  if (cached) return cached;
  const fields = columns.map((c) => c.field);
  const convert = columns.map((c) => (codec.decodesAsIs(c) ? undefined : c));
  const decoder = generatedDecoder(codec, fields, convert) ?? loopDecoder(codec, fields, convert);
  byShape.set(columns, decoder);
  return decoder;
}

/**
 * A decoder written for the shape: one object literal with the fields in order, so every row gets
 * the same hidden class at once instead of growing one property at a time. Field names enter the
 * source only through JSON.stringify; where code generation is unavailable (or a field is named
 * __proto__, which a literal would treat as the prototype) the loop decoder is used.
 */
function generatedDecoder(
  codec: ValueCodec,
  fields: readonly string[],
  convert: readonly (ColumnMeta | undefined)[],
): RowDecoder | undefined {
  if (fields.includes("__proto__")) return undefined;
  const entries = fields.map((field, i) => {
    const value = `row[${i}]`;
    const read = convert[i]
      ? `(${value} === null || ${value} === undefined ? null : codec.decode(${value}, columns[${i}]))`
      : `(${value} ?? null)`;
    return `${JSON.stringify(field)}: ${read}`;
  });
  try {
    const make = new Function("codec", "columns", `"use strict"; return function decodeRow(row) { return { ${entries.join(", ")} }; };`);
    return make(codec, convert) as RowDecoder;
  } catch {
    return undefined;
  }
}

function loopDecoder(codec: ValueCodec, fields: readonly string[], convert: readonly (ColumnMeta | undefined)[]): RowDecoder {
  const count = fields.length;
  return (row) => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) {
      const value = row[i];
      const column = convert[i];
      out[fields[i] as string] = value === null || value === undefined ? null : column ? codec.decode(value, column) : value;
    }
    return out;
  };
}
