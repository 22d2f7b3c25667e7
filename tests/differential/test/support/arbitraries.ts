import fc from "fast-check";
import type { ColumnSpec, Kind, LeafOp, Tree } from "./rules.js";
import { ENUM_VALUES, isOrdered, isTextKind, KINDS } from "./rules.js";

/** DIFFERENTIAL_KINDS=numeric,uuid narrows a run to some kinds (to find each class's minimal repro). */
const only = process.env.DIFFERENTIAL_KINDS?.split(",").filter(Boolean) as Kind[] | undefined;
const kinds = only && only.length > 0 ? KINDS.filter((k) => only.includes(k)) : KINDS;

/** Text that tells collations, case rules and pattern rules apart. */
const TEXT_PIECES = [
  "a",
  "A",
  "b",
  "B",
  "ß",
  "ẞ",
  "Ꭰ",
  "ꭰ",
  "𐐀",
  "𐐨",
  "é",
  "e\u0301",
  " ",
  "%",
  "_",
  "\\",
  "\0",
  "z",
  "10",
  "9",
  "K",
  "\u212a",
];

const text = fc.oneof(
  { weight: 6, arbitrary: fc.array(fc.constantFrom(...TEXT_PIECES), { maxLength: 4 }).map((parts) => parts.join("")) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 5 }) },
  // Longer than MySQL's `text` (65,535 bytes).
  { weight: 1, arbitrary: fc.constantFrom("x".repeat(70_000), `${"é".repeat(33_000)}!`) },
);

const uuidText = fc
  .tuple(fc.uuid({ version: 4 }), fc.boolean())
  .map(([u, upper]) => (upper ? u.toUpperCase() : u))
  .chain((u) => fc.constantFrom(u, u.toLowerCase(), u.toUpperCase()));

const decimalText = (intDigits: number, fracDigits: number) =>
  fc
    .tuple(
      fc.boolean(),
      fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 1, maxLength: intDigits }),
      fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: fracDigits }),
    )
    .map(([negative, int, frac]) => `${negative ? "-" : ""}${int}${frac ? `.${frac}` : ""}`);

const numeric = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("9", "10", "1.0", "1", "1.00", "-0", "0.5", "-10", "123.45", "0.001", "100") },
  { weight: 4, arbitrary: decimalText(4, 4) },
  { weight: 1, arbitrary: decimalText(40, 3) },
  { weight: 1, arbitrary: decimalText(3, 33) },
  { weight: 1, arbitrary: fc.integer({ min: -1000, max: 1000 }) },
);

const dateText = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T00:00:00Z"), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10)),
  },
  { weight: 1, arbitrary: fc.constantFrom("2023-02-30", "2024-02-29", "2023-02-29", "2024-13-01", "2024-04-31", "0000-01-01") },
);

const datetime = fc.oneof(
  { weight: 3, arbitrary: fc.date({ min: new Date("1800-01-01T00:00:00Z"), max: new Date("2200-01-01T00:00:00Z"), noInvalidDate: true }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      new Date("1900-01-01T00:00:00.000Z"),
      new Date("1913-12-31T23:59:59.999Z"),
      new Date("1914-01-01T00:00:00.000Z"),
      new Date("2024-03-31T01:30:00.123Z"),
      new Date("2024-10-27T01:30:00.456Z"),
      new Date("1970-01-01T00:00:00.000Z"),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.date({ min: new Date("0000-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59.999Z"), noInvalidDate: true }),
  },
);

/** Values for a column of the kind: mostly valid ones, and the invalid ones some database used to take. */
export function valuesOf(kind: Kind): fc.Arbitrary<unknown> {
  switch (kind) {
    case "integer":
      return fc.oneof(
        { weight: 5, arbitrary: fc.integer({ min: -20, max: 20 }) },
        { weight: 1, arbitrary: fc.constantFrom(2147483647, -2147483648, 2147483648, -2147483649, 2 ** 40) },
      );
    case "bigint":
      return fc.oneof(
        { weight: 5, arbitrary: fc.bigInt({ min: -20n, max: 20n }) },
        { weight: 1, arbitrary: fc.constantFrom(2n ** 63n - 1n, -(2n ** 63n), 2n ** 63n, 2n ** 53n + 1n) },
      );
    case "real":
      return fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(0, -0, 1, -1, 0.1, 0.5, 1e-300, 1e300, 2.5, 10, 9) },
        { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
      );
    case "numeric":
    case "numeric10_2":
      return numeric;
    case "text":
      return text;
    case "varchar":
      return text;
    case "uuid":
      return uuidText;
    case "enum":
      return fc.constantFrom(...ENUM_VALUES);
    case "boolean":
      return fc.boolean();
    case "date":
      return dateText;
    case "datetime":
      return datetime;
  }
}

export function columnsArb(): fc.Arbitrary<ColumnSpec[]> {
  return fc
    .uniqueArray(fc.tuple(fc.constantFrom(...kinds), fc.boolean()), { minLength: 1, maxLength: 3, selector: ([k]) => k })
    .map((list) => list.map(([kind, nullable], i) => ({ field: `c${i}`, kind, nullable })));
}

export interface Sample {
  readonly columns: ColumnSpec[];
  /** Rows as written (the id is the position + 1); a value may be invalid for its column. */
  readonly rows: Record<string, unknown>[];
}

export function sampleArb(maxRows = 8): fc.Arbitrary<Sample> {
  return columnsArb().chain((columns) =>
    fc
      .array(fc.tuple(...columns.map((c) => (c.nullable ? fc.option(valuesOf(c.kind), { nil: null, freq: 4 }) : valuesOf(c.kind)))), {
        minLength: 1,
        maxLength: maxRows,
      })
      .map((rows) => ({
        columns,
        rows: rows.map((values, i) => Object.fromEntries([["id", i + 1], ...columns.map((c, j) => [c.field, values[j]])])),
      })),
  );
}

/** Values for a where leaf: fresh ones, or ones the rows hold (so that comparisons hit). */
function operand(column: ColumnSpec, sample: Sample): fc.Arbitrary<unknown> {
  const held = sample.rows.map((r) => r[column.field]).filter((v) => v !== null && v !== undefined);
  return held.length > 0 ? fc.oneof(valuesOf(column.kind), fc.constantFrom(...held)) : valuesOf(column.kind);
}

function pattern(column: ColumnSpec, sample: Sample): fc.Arbitrary<string> {
  const held = sample.rows.map((r) => r[column.field]).filter((v): v is string => typeof v === "string" && v.length < 50);
  const piece = fc.oneof(
    fc.constantFrom("%", "_", "\\%", "\\_", "\\\\", "a", "A", "ß", "ẞ", "ꭰ", "Ꭰ", "𐐨", "𐐀", "k", "\u212a", "1"),
    ...(held.length > 0 ? [fc.constantFrom(...held)] : []),
  );
  return fc.oneof(
    { weight: 8, arbitrary: fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join("")) },
    { weight: 1, arbitrary: fc.constantFrom("a\\", "%\\", "\\") },
  );
}

export function leafArb(sample: Sample): fc.Arbitrary<Tree> {
  return fc.constantFrom(...sample.columns).chain((column): fc.Arbitrary<Tree> => {
    const ops: LeafOp[] = ["eq", "ne", "in", "notIn", "isNull"];
    if (isOrdered(column.kind)) ops.push("lt", "lte", "gt", "gte", "between");
    if (isTextKind(column.kind)) ops.push("like", "ilike", "like", "ilike");
    // Rarely, an operator the rules refuse for this kind.
    const refused: LeafOp[] = [
      ...(isTextKind(column.kind) ? [] : (["like"] as LeafOp[])),
      ...(isOrdered(column.kind) ? [] : (["lt"] as LeafOp[])),
    ];
    const op = fc.oneof(
      { weight: 20, arbitrary: fc.constantFrom(...ops) },
      ...(refused.length > 0 ? [{ weight: 1, arbitrary: fc.constantFrom(...refused) }] : []),
    );
    const v = operand(column, sample);
    return op.chain((o): fc.Arbitrary<Tree> => {
      const leaf = (value: fc.Arbitrary<unknown>) => value.map((x): Tree => ({ t: "leaf", field: column.field, op: o, value: x }));
      switch (o) {
        case "isNull":
          return leaf(fc.boolean());
        case "in":
        case "notIn":
          return leaf(fc.array(v, { minLength: 1, maxLength: 4 }));
        case "between":
          return leaf(fc.tuple(v, v));
        case "like":
        case "ilike":
          return leaf(isTextKind(column.kind) ? pattern(column, sample) : fc.constantFrom("1%", "%"));
        default:
          return leaf(v);
      }
    });
  });
}

export function treeArb(sample: Sample): fc.Arbitrary<Tree> {
  const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
    tree: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      { weight: 4, arbitrary: leafArb(sample) },
      { weight: 1, arbitrary: fc.array(tie("tree"), { minLength: 1, maxLength: 3 }).map((items): Tree => ({ t: "and", items })) },
      { weight: 1, arbitrary: fc.array(tie("tree"), { minLength: 1, maxLength: 3 }).map((items): Tree => ({ t: "or", items })) },
      { weight: 1, arbitrary: tie("tree").map((item): Tree => ({ t: "not", item })) },
    ),
  }));
  return tree;
}

/** A sample, where trees over it, and an ordering to check. */
export function caseArb(): fc.Arbitrary<{ sample: Sample; trees: Tree[]; order: { field: string; direction: "asc" | "desc" } }> {
  return sampleArb().chain((sample) =>
    fc.record({
      sample: fc.constant(sample),
      trees: fc.array(treeArb(sample), { minLength: 1, maxLength: 6 }),
      order: fc.record({
        field: fc.constantFrom(...sample.columns.map((c) => c.field)),
        direction: fc.constantFrom("asc" as const, "desc" as const),
      }),
    }),
  );
}
