import type { ColumnSnapshot } from "tempest-db-js";

/**
 * Why changing a column's type from `from` to `to` may lose or refuse values, or null when every
 * value of `from` converts exactly (a widening). Deliberately short: anything not listed as a
 * widening counts as narrowing, so a change this table does not know is refused, not run.
 */
export function narrowingReason(from: ColumnSnapshot, to: ColumnSnapshot): string | null {
  if (from.kind === to.kind) {
    switch (from.kind) {
      case "varchar":
        return fitsLength(from.length, to.length) ? null : `shortens varchar(${from.length}) to varchar(${to.length})`;
      case "numeric":
        return numericFits(from, to) ? null : `narrows ${numericText(from)} to ${numericText(to)}`;
      case "enum": {
        const kept = new Set(to.enumValues ?? []);
        const lost = (from.enumValues ?? []).filter((value) => !kept.has(value));
        return lost.length === 0 ? null : `removes ${lost.length} enum value${lost.length === 1 ? "" : "s"}: rows holding them fail`;
      }
      default:
        return null;
    }
  }
  if (widenings[from.kind]?.(from, to)) return null;
  return `changes the type from ${from.kind} to ${to.kind}: values may not convert`;
}

type Widening = (from: ColumnSnapshot, to: ColumnSnapshot) => boolean;

/** The longest text each kind's values take, for the kinds that widen to varchar. */
const uuidLength = 36;

const widenings: Partial<Record<ColumnSnapshot["kind"], Widening>> = {
  integer: (_from, to) => to.kind === "bigint" || to.kind === "real" || (to.kind === "numeric" && integerDigitsFit(to, 10)),
  bigint: (_from, to) => to.kind === "numeric" && integerDigitsFit(to, 19),
  varchar: (_from, to) => to.kind === "text",
  uuid: (_from, to) => to.kind === "text" || (to.kind === "varchar" && fitsLength(uuidLength, to.length)),
  enum: (from, to) => {
    if (to.kind === "text") return true;
    const longest = Math.max(0, ...(from.enumValues ?? []).map((value) => value.length));
    return to.kind === "varchar" && fitsLength(longest, to.length);
  },
};

/** A null length is unbounded. */
function fitsLength(from: number | null, to: number | null): boolean {
  return to === null || (from !== null && from <= to);
}

function integerDigitsFit(to: ColumnSnapshot, digits: number): boolean {
  return to.precision === null || to.precision - (to.scale ?? 0) >= digits;
}

/** numeric without a precision is unbounded; otherwise both the fraction and the integer part must fit. */
function numericFits(from: ColumnSnapshot, to: ColumnSnapshot): boolean {
  if (to.precision === null) return true;
  if (from.precision === null) return false;
  const fromScale = from.scale ?? 0;
  const toScale = to.scale ?? 0;
  return toScale >= fromScale && to.precision - toScale >= from.precision - fromScale;
}

function numericText(column: ColumnSnapshot): string {
  if (column.precision === null) return "numeric";
  return column.scale === null ? `numeric(${column.precision})` : `numeric(${column.precision}, ${column.scale})`;
}
