import { ValidationError } from "../errors.js";

/**
 * The values that may travel as a parameter without a column to say how: scalars, Date and bytes.
 * Anything else (a plain object, an array, a function, a symbol, a class instance) is refused,
 * because binding it would write garbage or open a door for injection.
 */
export function assertBindable(value: unknown, where: string): void {
  if (isScalar(value)) return;
  throw new ValidationError(`${where}: ${describe(value)} is not a value that can be bound; use sql.raw() / sql.expr\`\` for SQL`);
}

export function isScalar(value: unknown): boolean {
  switch (typeof value) {
    case "string":
    case "boolean":
    case "bigint":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      return value === null || isDateValue(value) || isBytes(value);
    default:
      return false;
  }
}

/**
 * A valid Date whose methods are Date's own. A subclass may override toISOString or getTime (which
 * the encoders call) to write another instant or arbitrary text; a Proxy of a Date, or an object
 * made from Date.prototype, has no time value at all and would crash the encoder.
 */
export function isDateValue(value: unknown): value is Date {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Date.prototype) return false;
  try {
    return !Number.isNaN(Date.prototype.getTime.call(value));
  } catch {
    return false;
  }
}

/** Bytes: a real Uint8Array (a Buffer is one), not an object that only inherits from its prototype. */
export function isBytes(value: unknown): value is Uint8Array {
  return ArrayBuffer.isView(value) && value instanceof Uint8Array;
}

/**
 * The type of a value, for an error message: never the value itself, which may be a secret from a
 * request (the field and the rule are what a reader needs).
 */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : Number.isFinite(value) ? "a number" : "an infinite number";
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return "a symbol";
  if (typeof value === "undefined") return "undefined";
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return "a plain object";
    return `an instance of ${proto.constructor?.name ?? "an unknown class"}`;
  }
  return `a ${typeof value}`;
}
