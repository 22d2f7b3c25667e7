import type { ColumnSnapshot, SqlNode } from "tempest-db-js";
import { parseSql } from "tempest-db-js";
import type { PulledTest, PulledWhere } from "./pulled-schema.js";

type Scalar = string | number | boolean;

const COMPARE: Readonly<Record<string, Exclude<PulledTest["kind"], "in" | "notIn" | "isNull">>> = {
  "=": "eq",
  "<>": "ne",
  "!=": "ne",
  "<": "lt",
  "<=": "lte",
  ">": "gt",
  ">=": "gte",
};
const FLIPPED: Readonly<Record<string, string>> = { "<": ">", "<=": ">=", ">": "<", ">=": "<=" };

/**
 * An index predicate (the normalised SQL text of a snapshot) in the where language, or undefined
 * when it says something the where language of a model cannot: comparisons of a column with a
 * literal, IS [NOT] NULL, IN lists, AND / OR / NOT.
 */
export function pulledWhere(
  text: string,
  columns: ReadonlyMap<string, { field: string; column: ColumnSnapshot }>,
): PulledWhere | undefined {
  const node = parseSql(text, { identifierQuotes: '"`' });
  return node === undefined ? undefined : convert(node, columns);
}

function convert(node: SqlNode, columns: ReadonlyMap<string, { field: string; column: ColumnSnapshot }>): PulledWhere | undefined {
  const field = (n: SqlNode) => (n.t === "name" && n.parts.length === 1 ? columns.get(n.parts[0] as string) : undefined);
  const single = (f: { field: string } | undefined, test: PulledTest | undefined): PulledWhere | undefined =>
    f && test ? { kind: "fields", entries: [[f.field, test]] } : undefined;
  switch (node.t) {
    case "binary": {
      const op = node.op.toLowerCase();
      if (op === "and" || op === "or") {
        const items = [...flatten(node, op)].map((item) => convert(item, columns));
        if (items.some((item) => item === undefined)) return undefined;
        return merge(op, items as PulledWhere[]);
      }
      const kind = COMPARE[op];
      if (!kind) return undefined;
      const left = field(node.left);
      if (left) return single(left, scalarTest(kind, node.right, left.column));
      const right = field(node.right);
      const flipped = COMPARE[FLIPPED[op] ?? op];
      return right && flipped ? single(right, scalarTest(flipped, node.left, right.column)) : undefined;
    }
    case "unary": {
      if (node.op.toLowerCase() !== "not") return undefined;
      const item = convert(node.operand, columns);
      return item && { kind: "not", item };
    }
    case "is":
      return node.what.toUpperCase() === "NULL" ? single(field(node.operand), { kind: "isNull", isNull: !node.negated }) : undefined;
    case "in": {
      const f = field(node.operand);
      if (!f) return undefined;
      const values = node.items.map((item) => scalar(item, f.column));
      if (values.some((v) => v === undefined)) return undefined;
      return single(f, { kind: node.negated ? "notIn" : "in", values: values as Scalar[] });
    }
    default:
      return undefined;
  }
}

function* flatten(node: SqlNode, op: string): Generator<SqlNode> {
  if (node.t === "binary" && node.op.toLowerCase() === op) {
    yield* flatten(node.left, op);
    yield* flatten(node.right, op);
  } else yield node;
}

/** `a AND b` over different fields is one object (`{ a, b }`), as a model would write it. */
function merge(op: "and" | "or", items: PulledWhere[]): PulledWhere {
  if (op === "and" && items.every((i) => i.kind === "fields")) {
    const entries = items.flatMap((i) => (i.kind === "fields" ? i.entries : []));
    if (new Set(entries.map(([f]) => f)).size === entries.length) return { kind: "fields", entries };
  }
  return { kind: op, items };
}

function scalarTest(
  kind: Exclude<PulledTest["kind"], "in" | "notIn" | "isNull">,
  node: SqlNode,
  column: ColumnSnapshot,
): PulledTest | undefined {
  const value = scalar(node, column);
  return value === undefined ? undefined : { kind, value };
}

/**
 * A number's digits: a bare literal, or a quoted constant (PostgreSQL's canonical predicates write a
 * number compared with a column quoted, `"priority" >= '5'`, the one spelling for every numeric type).
 */
function numberText(node: SqlNode): string | undefined {
  const text = node.t === "literal" ? node.text : node.t === "string" && node.prefix === "" ? node.value : undefined;
  return text !== undefined && /^-?\d+(\.\d+)?$/.test(text) ? text : undefined;
}

/** A literal as the column's TypeScript value: text kinds take strings, numbers numbers, numeric its digits as a string. */
function scalar(node: SqlNode, column: ColumnSnapshot): Scalar | undefined {
  switch (column.kind) {
    case "text":
    case "varchar":
    case "enum":
    case "uuid":
    case "date":
      return node.t === "string" && node.prefix === "" ? node.value : undefined;
    case "integer":
    case "real":
    case "bigint": {
      const text = numberText(node);
      if (text === undefined) return undefined;
      const n = Number(text);
      return Number.isSafeInteger(n) || (column.kind === "real" && Number.isFinite(n)) ? n : undefined;
    }
    case "numeric":
      return numberText(node);
    case "boolean":
      return node.t === "keyword" && (node.word === "TRUE" || node.word === "FALSE") ? node.word === "TRUE" : undefined;
    default:
      return undefined;
  }
}
