import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { createEngine, sql, ValidationError } from "tempest-db-js";
import { afterAll, describe, expect, it } from "vitest";
import { parseSqliteUrl } from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "tempest-sqlite-url-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(url: string): string {
  try {
    parseSqliteUrl(url, "/work");
  } catch (error) {
    expect(ValidationError.isInstance(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`${url} was accepted`);
}

describe("parseSqliteUrl", () => {
  it("reads the three documented forms", () => {
    expect(parseSqliteUrl("sqlite:///var/data/app.db", "/work")).toEqual({ filename: "/var/data/app.db", memory: false });
    expect(parseSqliteUrl("sqlite://app.db", "/work")).toEqual({ filename: "/work/app.db", memory: false });
    expect(parseSqliteUrl("sqlite://data/../queue.db", "/work")).toEqual({ filename: "/work/queue.db", memory: false });
    expect(parseSqliteUrl("sqlite::memory:", "/work")).toEqual({ filename: ":memory:", memory: true });
    expect(parseSqliteUrl("sqlite://:memory:", "/work")).toEqual({ filename: ":memory:", memory: true });
  });

  it("takes the scheme in any case and decodes percent-escapes in the path", () => {
    expect(parseSqliteUrl("SQLite:///tmp/my%20queue%3F.db", "/work").filename).toBe("/tmp/my queue?.db");
  });

  it("reads a Windows drive path after the third slash", () => {
    expect(parseSqliteUrl("sqlite:///C:/data/app.db", "/work").filename).toBe("C:/data/app.db");
  });

  it("refuses what it cannot read unambiguously, naming the accepted forms", () => {
    expect(refusal("sqlite:")).toContain("sqlite::memory:");
    expect(refusal("sqlite://")).toContain("names no file");
    expect(refusal("sqlite:///")).toContain("names no file");
    expect(refusal("sqlite:app.db")).toContain("sqlite://relative/path.db");
    expect(refusal("postgres://host/db")).toContain("Not an SQLite URL");
    expect(refusal("sqlite:///tmp/app.db?mode=ro")).toContain("no query string");
    expect(refusal("sqlite:///tmp/app.db#frag")).toContain("no query string");
    expect(refusal("sqlite:///tmp/%E0%A4%A")).toContain("malformed percent-escape");
    expect(refusal("sqlite:///tmp/a%00b.db")).toContain("NUL");
    expect(refusal("sqlite:///tmp/dir/")).toContain("directory");
  });
});

describe("createEngine with an SQLite URL", () => {
  it("throws ValidationError at once for a malformed URL, before anything connects", () => {
    let error: unknown;
    try {
      createEngine("sqlite://");
    } catch (e) {
      error = e;
    }
    expect(ValidationError.isInstance(error)).toBe(true);
  });

  it("opens a relative path against the working directory", async () => {
    const file = join(dir, "relative.db");
    const engine = createEngine(`sqlite://${relative(process.cwd(), file)}`);
    try {
      expect(await engine.execute(sql.raw("SELECT 42 AS answer")).all()).toEqual([{ answer: 42 }]);
      expect(existsSync(file)).toBe(true);
    } finally {
      await engine.close();
    }
  });
});
