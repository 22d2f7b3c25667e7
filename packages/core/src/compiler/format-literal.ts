import { ValidationError } from "../errors.js";

/** An encoded value as an SQL literal, for DDL where parameters are not allowed. */
export function formatLiteral(value: unknown, backslashEscapes: boolean): string {
  if (value === null || value === undefined) return "NULL";
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value))
        throw new ValidationError(`Cannot write ${Number.isNaN(value) ? "NaN" : "an infinite number"} as an SQL literal`);
      return String(value);
    case "bigint":
      return String(value);
    case "boolean":
      return value ? "TRUE" : "FALSE";
    case "string": {
      if (value.includes("\0")) throw new ValidationError("A NUL character cannot be written into DDL");
      const escaped = backslashEscapes ? value.replaceAll("\\", "\\\\") : value;
      return `'${escaped.replaceAll("'", "''")}'`;
    }
    default:
      if (value instanceof Date) return formatLiteral(value.toISOString(), backslashEscapes);
      if (value instanceof Uint8Array) return `X'${Buffer.from(value).toString("hex")}'`;
      return formatLiteral(JSON.stringify(value), backslashEscapes);
  }
}
