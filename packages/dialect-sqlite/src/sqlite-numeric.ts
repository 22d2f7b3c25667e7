/**
 * SQLite numeric values as text whose byte order is their numeric order, and in which equal values
 * are equal text, so that `=`, `<`, BETWEEN, IN, ORDER BY, GROUP BY and unique keys compare numbers
 * (plain decimal text compares "10" < "9", and "1.0" <> "1") with every digit kept (a REAL would
 * round past 15 significant digits).
 *
 * A value is d1 d2 ... dn x 10^e written 0.d1...dn with no leading or trailing zero digit:
 *   zero      "O"
 *   positive  "P" + (e + 5000) in 4 digits + d1...dn
 *   negative  "M" + (4999 - e) in 4 digits + (9 - d1)...(9 - dn) + "~"
 * ("M" < "O" < "P"; among negatives a larger exponent or more digits is smaller, which the complement
 * and the terminator "~", above every digit, give.) Plain decimal text, as versions before this one
 * stored, still decodes.
 */
const PLAIN = /^-?\d+(\.\d+)?$/;
const OFFSET = 5000;

interface Decimal {
  readonly negative: boolean;
  /** Significant digits, no leading or trailing zero; empty for zero. */
  readonly digits: string;
  /** Digits before the point of 0.digits. */
  readonly exponent: number;
}

function parsePlain(text: string): Decimal {
  const negative = text.startsWith("-");
  const body = negative ? text.slice(1) : text;
  const point = body.indexOf(".");
  const whole = point < 0 ? body : body.slice(0, point);
  const fraction = point < 0 ? "" : body.slice(point + 1);
  const all = whole + fraction;
  const lead = all.length - all.replace(/^0+/, "").length;
  const digits = all.slice(lead).replace(/0+$/, "");
  return { negative: negative && digits !== "", digits, exponent: digits === "" ? 0 : whole.length - lead };
}

function complement(digits: string): string {
  let out = "";
  for (let i = 0; i < digits.length; i++) out += String.fromCharCode(105 - digits.charCodeAt(i)); // '9' + '0' - d
  return out;
}

/** A decimal string (or a number / bigint, written as text first) in the ordered form. */
export function encodeNumeric(value: string | number | bigint): string {
  const { negative, digits, exponent } = parsePlain(typeof value === "string" ? value : plainText(value));
  if (digits === "") return "O";
  if (!negative) return `P${String(exponent + OFFSET).padStart(4, "0")}${digits}`;
  return `M${String(OFFSET - 1 - exponent).padStart(4, "0")}${complement(digits)}~`;
}

/** A number without exponent notation (checkValue lets only finite numbers through). */
function plainText(value: number | bigint): string {
  if (typeof value === "bigint") return value.toString();
  const text = String(value);
  if (!/e/i.test(text)) return text;
  const [mantissa = "0", exp = "0"] = text.split(/e/i);
  const negative = mantissa.startsWith("-");
  const [whole = "0", fraction = ""] = (negative ? mantissa.slice(1) : mantissa).split(".");
  const digits = whole + fraction;
  const point = whole.length + Number(exp);
  const body =
    point <= 0
      ? `0.${"0".repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + "0".repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return negative ? `-${body}` : body;
}

/** The ordered form (or legacy plain text) back into the canonical decimal: `scale` decimals, or none trailing when undefined. */
export function decodeNumeric(text: string, scale: number | undefined): string {
  let decimal: Decimal;
  if (PLAIN.test(text)) decimal = parsePlain(text);
  else if (text === "O") decimal = { negative: false, digits: "", exponent: 0 };
  else if (text.startsWith("P")) decimal = { negative: false, digits: text.slice(5), exponent: Number(text.slice(1, 5)) - OFFSET };
  else if (text.startsWith("M") && text.endsWith("~")) {
    decimal = { negative: true, digits: complement(text.slice(5, -1)), exponent: OFFSET - 1 - Number(text.slice(1, 5)) };
  } else return text;
  const { negative, digits, exponent } = decimal;
  let whole: string;
  let fraction: string;
  if (exponent <= 0) {
    whole = "0";
    fraction = "0".repeat(-exponent) + digits;
  } else if (exponent >= digits.length) {
    whole = digits + "0".repeat(exponent - digits.length);
    fraction = "";
  } else {
    whole = digits.slice(0, exponent);
    fraction = digits.slice(exponent);
  }
  if (digits === "") whole = "0";
  if (scale !== undefined) fraction = fraction.padEnd(scale, "0").slice(0, Math.max(scale, 0));
  const body = fraction === "" ? whole : `${whole}.${fraction}`;
  return negative ? `-${body}` : body;
}
