import type { RowNesting } from "../ast/query-node.js";
import { conversionOf } from "../builder/result-columns.js";
import type { ValueCodec } from "../codec/value-codec.js";
import type { ColumnMeta } from "../schema/column-meta.js";

export type RowDecoder = (row: readonly unknown[]) => Record<string, unknown>;

const decoders = new WeakMap<ValueCodec, WeakMap<readonly ColumnMeta[], RowDecoder>>();

/** Per column: the column when the codec must decode it, and the conversion a computed value goes through. */
interface ColumnPlan {
  readonly decode: ColumnMeta | undefined;
  readonly convert: ((value: unknown) => unknown) | undefined;
}

/**
 * The decoder for one row shape, built once per (dialect codec, column list) and reused for every
 * row after: no per-row reflection. Columns whose driver value already is the JavaScript value skip
 * the codec entirely. The codec is the dialect's, not the compiler's: the engine replaces its compiler
 * once the server is inspected, and the decoders built before stay valid. A joined select's rows nest
 * one object per source (`nesting`); a column list is only ever read one way, so it keys the cache alone.
 */
export function rowDecoder(codec: ValueCodec, columns: readonly ColumnMeta[], nesting?: RowNesting): RowDecoder {
  let byShape = decoders.get(codec);
  if (!byShape) {
    byShape = new WeakMap();
    decoders.set(codec, byShape);
  }
  const cached = byShape.get(columns);
  if (cached) return cached;
  const plans = columns.map((c): ColumnPlan => ({ decode: codec.decodesAsIs(c) ? undefined : c, convert: conversionOf(c) }));
  const decoder = generatedDecoder(codec, columns, plans, nesting) ?? loopDecoder(codec, columns, plans, nesting);
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
  columns: readonly ColumnMeta[],
  plans: readonly ColumnPlan[],
  nesting: RowNesting | undefined,
): RowDecoder | undefined {
  if (columns.some((c) => c.field === "__proto__") || nesting?.groups.some((g) => g.key === "__proto__")) return undefined;
  const read = (i: number): string => {
    const value = `row[${i}]`;
    const plan = plans[i] as ColumnPlan;
    let decoded = plan.decode ? `codec.decode(${value}, columns[${i}])` : value;
    if (plan.convert) decoded = `converts[${i}](${decoded})`;
    return plan.decode || plan.convert ? `(${value} === null || ${value} === undefined ? null : ${decoded})` : `(${value} ?? null)`;
  };
  const entries = (start: number, end: number): string => {
    const out: string[] = [];
    for (let i = start; i < end; i++) out.push(`${JSON.stringify((columns[i] as ColumnMeta).field)}: ${read(i)}`);
    return `{ ${out.join(", ")} }`;
  };
  const body = nesting
    ? `{ ${nesting.groups
        .map(
          (g) =>
            `${JSON.stringify(g.key)}: ${g.nullAt < 0 ? entries(g.start, g.end) : `row[${g.nullAt}] === null || row[${g.nullAt}] === undefined ? null : ${entries(g.start, g.end)}`}`,
        )
        .join(", ")} }`
    : entries(0, columns.length);
  try {
    const make = new Function("codec", "columns", "converts", `"use strict"; return function decodeRow(row) { return ${body}; };`);
    return make(
      codec,
      plans.map((p) => p.decode),
      plans.map((p) => p.convert),
    ) as RowDecoder;
  } catch {
    return undefined;
  }
}

function loopDecoder(
  codec: ValueCodec,
  columns: readonly ColumnMeta[],
  plans: readonly ColumnPlan[],
  nesting: RowNesting | undefined,
): RowDecoder {
  const readInto = (row: readonly unknown[], out: Record<string, unknown>, start: number, end: number): Record<string, unknown> => {
    for (let i = start; i < end; i++) {
      const value = row[i];
      const plan = plans[i] as ColumnPlan;
      let decoded: unknown = value;
      if (value === null || value === undefined) decoded = null;
      else {
        if (plan.decode) decoded = codec.decode(value, plan.decode);
        if (plan.convert) decoded = plan.convert(decoded);
      }
      Object.defineProperty(out, (columns[i] as ColumnMeta).field, {
        value: decoded,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  if (!nesting) return (row) => readInto(row, {}, 0, columns.length);
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const g of nesting.groups) {
      const value = g.nullAt >= 0 && (row[g.nullAt] === null || row[g.nullAt] === undefined) ? null : readInto(row, {}, g.start, g.end);
      Object.defineProperty(out, g.key, { value, enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
}
