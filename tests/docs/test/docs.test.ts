import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Target } from "./doc-blocks.js";
import { docBlocks, TARGETS } from "./doc-blocks.js";
import type { DocProgram } from "./doc-programs.js";
import { docPrograms } from "./doc-programs.js";
import { pointAtDatabase } from "./point-at-database.js";
import { publicExports } from "./public-exports.js";
import { targetDatabases } from "./target-databases.js";
import { transpileProgram, typecheckPrograms } from "./typecheck-programs.js";

const root = resolve(import.meta.dirname, "../../..");
const generated = resolve(import.meta.dirname, "../.generated");
const docsDir = join(root, "docs");
const markdown = [
  ...readdirSync(docsDir)
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => join(docsDir, name)),
  join(root, "README.md"),
];

interface RunResult {
  readonly id: string;
  readonly ok: boolean;
  readonly error?: string;
}

let programs: DocProgram[] = [];
let parseError: unknown;
try {
  programs = markdown.flatMap((path) => docPrograms(docBlocks(path, root)));
} catch (error) {
  parseError = error;
}

/** Stack frames of a generated module, pointed back at the Markdown line. */
function toDocLines(text: string): string {
  return text.replace(/[\w/.-]*\/([\w-]+)\.ts:(\d+)(?::\d+)?/g, (match, id: string, line: string) => {
    const origin = programs.find((p) => p.id === id)?.origins[Number(line) - 1];
    return origin ? `${origin.file}:${origin.line}` : match;
  });
}

/** A target's databases, created, and its programs, transpiled and pointed at them. */
interface PreparedTarget {
  readonly dir: string;
  readonly list: readonly DocProgram[];
  readonly databases: Awaited<ReturnType<typeof targetDatabases>>;
}

/**
 * Creates a target's databases, then transpiles its programs: synchronous work that holds the event
 * loop for seconds on a loaded machine. The targets are prepared one after another, so that no
 * connection of another target is being opened meanwhile (its connect timeout would fire before its
 * handshake is read: "connect ETIMEDOUT" from a server that answered in time).
 */
async function prepareTarget(target: Target, list: readonly DocProgram[]): Promise<PreparedTarget> {
  const dir = join(generated, target);
  mkdirSync(dir, { recursive: true });
  const names = list.map((p) => `tdocs_${p.id}`.toLowerCase().slice(0, 60));
  const databases = await targetDatabases(target, names);
  try {
    const entries = list.map((program, i) => {
      const url = databases.urls.get(names[i] as string) as string;
      const fileName = `${program.id}.ts`;
      const js = join(dir, `${program.id}.mjs`);
      writeFileSync(js, transpileProgram(pointAtDatabase(program.code, target, url), fileName));
      return { id: program.id, js, timeoutMs: 30_000 };
    });
    writeFileSync(join(dir, "programs.json"), JSON.stringify(entries));
    return { dir, list, databases };
  } catch (error) {
    await databases.drop();
    throw error;
  }
}

/** Runs a prepared target's programs in a child process, then drops its databases. */
async function runTarget({ dir, list, databases }: PreparedTarget): Promise<Map<string, RunResult>> {
  try {
    const listFile = join(dir, "programs.json");
    const outFile = join(dir, "results.json");
    rmSync(outFile, { force: true });
    const output = await new Promise<string>((done) => {
      const child = spawn(process.execPath, ["--enable-source-maps", join(import.meta.dirname, "run-programs.mjs"), listFile, outFile], {
        cwd: resolve(import.meta.dirname, ".."),
        // Every docs example runs on engines that take operators only from the op helpers: a reader who
        // copies one into a request handler gets the safe form (docs/queries.md, "Input from a request").
        env: { ...process.env, TEMPEST_OPERATORS: "helpers-only" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let text = "";
      child.stdout.on("data", (chunk) => (text += chunk));
      child.stderr.on("data", (chunk) => (text += chunk));
      child.on("close", () => done(text));
    });
    const results = existsSync(outFile) ? (JSON.parse(readFileSync(outFile, "utf8")) as RunResult[]) : [];
    const byId = new Map(results.map((r) => [r.id, r]));
    for (const program of list) {
      if (!byId.has(program.id))
        byId.set(program.id, { id: program.id, ok: false, error: `the runner stopped before this program:\n${output}` });
    }
    return byId;
  } finally {
    await databases.drop();
  }
}

describe("the TypeScript blocks of docs/*.md and README.md", () => {
  let diagnostics: string[] = [];
  const results = new Map<Target, Map<string, RunResult>>();

  beforeAll(async () => {
    if (parseError) return;
    rmSync(generated, { recursive: true, force: true });
    const dist = [
      "packages/core",
      "packages/dialect-sqlite",
      "packages/dialect-postgres",
      "packages/dialect-mysql",
      "packages/queue-recipes",
      "packages/queue-console",
      "examples/dialect-postgresjs",
    ];
    for (const pkg of dist) {
      if (!existsSync(join(root, pkg, "dist/index.js")))
        throw new Error(`${pkg} is not built: run pnpm build first (the docs run against what users install)`);
    }
    diagnostics = typecheckPrograms(programs, join(generated, "check"));
    const prepared = new Map<Target, PreparedTarget>();
    try {
      for (const target of TARGETS) {
        const list = programs.filter((p) => p.targets.includes(target));
        if (list.length > 0) prepared.set(target, await prepareTarget(target, list));
      }
    } catch (error) {
      await Promise.all([...prepared.values()].map((p) => p.databases.drop()));
      throw error;
    }
    // The programs of each target run in a child process of their own, side by side.
    await Promise.all([...prepared].map(async ([target, p]) => results.set(target, await runTarget(p))));
  }, 600_000);

  afterAll(() => {
    rmSync(generated, { recursive: true, force: true });
  });

  it("follow the fence convention", () => {
    expect(parseError).toBeUndefined();
    expect(programs.length).toBeGreaterThan(0);
  });

  it("type-check under strict settings", () => {
    expect(diagnostics.join("\n")).toBe("");
  });

  it("leave no public export out of docs/api.md", () => {
    const api = readFileSync(join(docsDir, "api.md"), "utf8");
    const packages = [
      "tempest-db-js",
      "tempest-db-js/dialect",
      "tempest-db-js/testing",
      "@tempest-db-js/dialect-postgres",
      "@tempest-db-js/dialect-postgres/testing",
      "@tempest-db-js/dialect-mysql",
      "@tempest-db-js/dialect-sqlite",
      "@tempest-db-js/queue-recipes",
      "@tempest-db-js/queue-console",
    ];
    const missing: string[] = [];
    for (const [specifier, names] of publicExports(packages, join(generated, "exports"))) {
      expect(names.length, `${specifier} exports nothing?`).toBeGreaterThan(0);
      for (const name of names) if (!new RegExp(`\\b${name}\\b`).test(api)) missing.push(`${specifier}: ${name}`);
    }
    expect(missing).toEqual([]);
  });

  for (const program of programs) {
    for (const target of program.targets) {
      it(`${program.file}:${program.line} runs on ${target}`, () => {
        const result = results.get(target)?.get(program.id);
        if (!result?.ok) throw new Error(toDocLines(result?.error ?? "no result"));
      });
    }
  }
});
