import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChildRun } from "./child-timing.js";
import { timeChild } from "./child-timing.js";
import { SCALE_PREFIX } from "./scale-schema.js";
import { drizzleSchemaSource } from "./scale-schema-drizzle.js";

/**
 * A drizzle project in `dir` for the generate-scale schema: `schema-base.ts` (the tables as they
 * are live), `schema.ts` (with the added columns), and a config for each command. drizzle-kit
 * runs as its own process (`node .../drizzle-kit/bin.cjs`), the way a user runs it. `dir` must sit
 * inside the bench package, so that the schema files find drizzle-orm.
 */
export class DrizzleProject {
  private readonly bin: string;

  constructor(
    readonly dir: string,
    benchRoot: string,
    n: number,
  ) {
    this.bin = join(benchRoot, "node_modules/drizzle-kit/bin.cjs");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "schema-base.ts"), drizzleSchemaSource(n, false));
    writeFileSync(join(dir, "schema.ts"), drizzleSchemaSource(n, true));
    // Only the schema's tables (the bench database holds other sections' tables too); the URL from
    // the environment, so that no credential is written to a file.
    const config = (schema: string | null, out: string) => {
      const fixed = { dialect: "postgresql", ...(schema === null ? {} : { schema }), out, tablesFilter: [`${SCALE_PREFIX}*`] };
      return `export default { ...${JSON.stringify(fixed)}, dbCredentials: { url: process.env.GS_URL } };\n`;
    };
    writeFileSync(join(dir, "base.config.mjs"), config("./schema-base.ts", "./base"));
    writeFileSync(join(dir, "drizzle.config.mjs"), config("./schema.ts", "./drizzle"));
    writeFileSync(join(dir, "pull.config.mjs"), config(null, "./pulled"));
  }

  private run(args: readonly string[], url: string): ChildRun {
    return timeChild(process.execPath, [this.bin, ...args], this.dir, { GS_URL: url });
  }

  /** The first migration, from the unchanged schema (untimed): what `generate` diffs against. */
  generateBase(url: string): void {
    rmSync(join(this.dir, "base"), { recursive: true, force: true });
    this.run(["generate", "--config", "base.config.mjs"], url);
  }

  /** Back to the state after the first migration, so every timed generate does the same diff. */
  resetGenerated(): void {
    rmSync(join(this.dir, "drizzle"), { recursive: true, force: true });
    cpSync(join(this.dir, "base"), join(this.dir, "drizzle"), { recursive: true });
  }

  /** `drizzle-kit generate`: loads schema.ts, diffs it against the last snapshot, writes SQL + snapshot. */
  generate(url: string): ChildRun {
    return this.run(["generate", "--config", "drizzle.config.mjs"], url);
  }

  /** The statements of the newest migration `generate` wrote. */
  generatedStatements(): string[] {
    const files = readdirSync(join(this.dir, "drizzle"))
      .filter((f) => f.endsWith(".sql"))
      .sort();
    const newest = readFileSync(join(this.dir, "drizzle", files[files.length - 1] as string), "utf8");
    return newest
      .split("--> statement-breakpoint")
      .map((s) => s.trim())
      .filter((s) => s !== "");
  }

  resetPulled(): void {
    rmSync(join(this.dir, "pulled"), { recursive: true, force: true });
  }

  /** `drizzle-kit pull`: introspects the live database, writes schema.ts, relations.ts, SQL and a snapshot. */
  pull(url: string): ChildRun {
    return this.run(["pull", "--config", "pull.config.mjs"], url);
  }

  /** How many tables the last pull's snapshot holds. */
  pulledTables(): number {
    const meta = join(this.dir, "pulled", "meta");
    const snapshot = readdirSync(meta).find((f) => f.endsWith("_snapshot.json")) as string;
    return Object.keys((JSON.parse(readFileSync(join(meta, snapshot), "utf8")) as { tables: object }).tables).length;
  }

  /** `drizzle-kit push --verbose`: introspects, diffs against schema.ts and applies (no file). */
  push(url: string): ChildRun {
    return this.run(["push", "--verbose", "--config", "drizzle.config.mjs"], url);
  }
}

/** The DDL statements push --verbose printed before applying them. */
export function pushedStatements(stdout: string): string[] {
  return stdout
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^(ALTER|CREATE|DROP|COMMENT) /.test(l));
}
