/**
 * In/notIn lists longer than this are sent as one JSON array parameter instead of a parameter per
 * value: the statement's text and parameter count then no longer grow with the list.
 */
export const LONG_LIST = 500;

/**
 * Encoded values as JSON array text, bigints written with all their digits (JSON.stringify refuses
 * them, and a double would round them); undefined when a value has no JSON form (bytes).
 */
export function jsonArrayText(values: readonly unknown[]): string | undefined {
  let text = "[";
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    let item: string;
    if (typeof value === "bigint") item = value.toString();
    else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean" || value === null)
      item = JSON.stringify(value);
    else return undefined;
    text += i === 0 ? item : `,${item}`;
  }
  return `${text}]`;
}
