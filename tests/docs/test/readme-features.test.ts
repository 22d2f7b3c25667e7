import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { cte, Engine, exists, SelectBuilder, scalar, sql } from "tempest-db-js";
import { describe, expect, it } from "vitest";

/**
 * The README's "What the builder has" section against the library itself: every feature the library
 * has is named among what it has (and links its page), and none of them is named among what is
 * missing. A feature that lands without the README saying so, or a README that still calls it
 * missing, fails here.
 */
const readme = readFileSync(resolve(import.meta.dirname, "../../../README.md"), "utf8");
const section = readme.slice(readme.indexOf("## What the builder has"), readme.indexOf("## Node.js versions"));
const [has = "", missing = ""] = section.split(/Not in the builder/);

const proto = SelectBuilder.prototype as unknown as Record<string, unknown>;
/** Feature, the words the README uses for it, and whether the library has it (asked of the library). */
const FEATURES: [string, RegExp, () => boolean][] = [
  ["joins", /\bjoins?\b/i, () => typeof proto.innerJoin === "function" && typeof proto.leftJoin === "function"],
  ["aggregates", /\baggregates?\b/i, () => typeof proto.columns === "function"],
  ["GROUP BY", /GROUP BY/, () => typeof proto.groupBy === "function"],
  ["HAVING", /HAVING/, () => typeof proto.having === "function"],
  ["EXISTS", /EXISTS/, () => typeof exists === "function"],
  ["scalar subqueries", /scalar subquer/i, () => typeof scalar === "function"],
  ["CTEs", /\bCTEs?\b/, () => typeof cte === "function"],
  ["set operations", /set operations|UNION/, () => typeof proto.union === "function" && typeof proto.except === "function"],
  ["window functions", /window functions/i, () => typeof proto.columns === "function"],
  ["prepared statements", /prepared statements|engine\.prepare/, () => typeof Engine.prototype.prepare === "function"],
  ["streaming", /stream/i, () => typeof Engine.prototype.stream === "function"],
  ["typed raw queries", /typed raw|sql\.typed/, () => typeof sql.typed === "function"],
  ["relations", /\brelations\b/i, () => typeof proto.with === "function" && typeof proto.withCount === "function"],
];

/** The query-language pages a newcomer is pointed to, from the README and from getting-started. */
const PAGES = [
  "queries.md",
  "joins-and-aggregates.md",
  "relations.md",
  "ctes-and-set-operations.md",
  "window-functions.md",
  "expressions.md",
];

describe("the README says what the library does today", () => {
  it.each(FEATURES)("%s: named as present, not as missing, when the library has it", (_, words, present) => {
    expect(has.length).toBeGreaterThan(100);
    if (present()) {
      expect(has).toMatch(words);
      expect(missing).not.toMatch(words);
    } else {
      expect(has).not.toMatch(words);
    }
  });

  it("the README and getting-started link every query-language page", () => {
    const gettingStarted = readFileSync(resolve(import.meta.dirname, "../../../docs/getting-started.md"), "utf8");
    for (const page of PAGES) {
      expect(section).toContain(`(docs/${page})`);
      expect(gettingStarted).toContain(`(${page})`);
    }
  });
});
