/**
 * What kind of value an option got, for its error: never the value itself, which may be anything a
 * caller passed on from elsewhere (core's errors follow the same rule).
 */
export function valueKind(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "number") {
    if (Number.isNaN(value)) return "NaN";
    if (!Number.isFinite(value)) return "an infinite number";
    return Number.isInteger(value) ? "an integer out of range" : "a fractional number";
  }
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
