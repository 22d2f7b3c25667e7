/** Distinct VALUES grid shapes kept, and heads per shape; a program uses a handful. */
const MAX_TEXTS = 64;

/**
 * The texts of all-parameter INSERTs, per shape. A VALUES grid of bound cells depends only on its
 * size and where its placeholders start, so it is written once per shape; the whole INSERT made of
 * it is kept too, so that a bulk insert sends the same string object every time and the driver's
 * statement cache finds it by a hash already computed, instead of hashing kilobytes of SQL.
 */
export class ValuesTexts {
  /** Grid texts by start:rows:width. */
  readonly #grids = new Map<string, string>();
  /** Whole INSERT texts by grid text (only grids made here) and head. */
  readonly #wholes = new Map<string, Map<string, string>>();

  /** `(p, p, ...), (p, p, ...)`: `rows` × `width` placeholders numbered from `start + 1`. */
  grid(start: number, rows: number, width: number, placeholder: (index: number) => string): string {
    const key = `${start}:${rows}:${width}`;
    let text = this.#grids.get(key);
    if (text === undefined) {
      const parts: string[] = [];
      for (let r = 0, n = start; r < rows; r++) {
        const row: string[] = [];
        for (let c = 0; c < width; c++) row.push(placeholder(++n));
        parts.push(`(${row.join(", ")})`);
      }
      text = parts.join(", ");
      if (this.#grids.size < MAX_TEXTS) {
        this.#grids.set(key, text);
        this.#wholes.set(text, new Map());
      }
    }
    return text;
  }

  /** `head + values`, the same string object every time when `values` is a grid kept here. */
  whole(head: string, values: string): string {
    const byHead = this.#wholes.get(values);
    if (!byHead) return head + values;
    let whole = byHead.get(head);
    if (whole === undefined) {
      whole = head + values;
      if (byHead.size < MAX_TEXTS) byHead.set(head, whole);
    }
    return whole;
  }
}
