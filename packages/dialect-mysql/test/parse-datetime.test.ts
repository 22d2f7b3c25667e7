import { describe, expect, it } from "vitest";
import { parseUtcDateTime } from "../src/mysql-types.js";

/** The text MariaDB returns for a datetime(3) holding `date` (UTC). */
const text = (date: Date) => date.toISOString().replace("T", " ").slice(0, 23);

describe("datetime text read as UTC", () => {
  it("the field-by-field path gives the instant the text names, for years 0000-9999 (5,000 instants)", () => {
    const min = Date.parse("0000-01-01T00:00:00.000Z");
    const max = Date.parse("9999-12-31T23:59:59.999Z");
    let x = 12345;
    for (let i = 0; i < 5000; i++) {
      // A pseudo-random instant in [min, max], and the edges.
      x = (x * 1103515245 + 12345) % 2 ** 31;
      const time = i === 0 ? min : i === 1 ? max : min + Math.floor((x / 2 ** 31) * (max - min));
      const date = new Date(time);
      expect(parseUtcDateTime(text(date)).getTime(), text(date)).toBe(time);
    }
  });

  it("other spellings take the general path: no fraction, microseconds, date only, and text that is no datetime", () => {
    expect(parseUtcDateTime("2024-02-29 12:34:56").toISOString()).toBe("2024-02-29T12:34:56.000Z");
    expect(parseUtcDateTime("2024-02-29 12:34:56.123456").toISOString()).toBe("2024-02-29T12:34:56.123Z");
    expect(parseUtcDateTime("2024-02-29").toISOString()).toBe("2024-02-29T00:00:00.000Z");
    expect(parseUtcDateTime("0042-01-02 03:04:05.006").toISOString()).toBe("0042-01-02T03:04:05.006Z");
    expect(Number.isNaN(parseUtcDateTime("2024-02-29 1x:34:56.123").getTime())).toBe(true);
    expect(Number.isNaN(parseUtcDateTime("soon").getTime())).toBe(true);
  });
});
