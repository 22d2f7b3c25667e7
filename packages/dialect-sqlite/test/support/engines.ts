import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Engine, EngineOptions } from "tempest-db-js";
import { createEngine } from "tempest-db-js";
import "../../src/index.js";

export type Target = "file" | "memory";
export const targets: readonly Target[] = ["file", "memory"];

export interface TestDatabase {
  readonly engine: Engine;
  readonly url: string;
  /** The database file (undefined for :memory:). */
  readonly path: string | undefined;
  close(): Promise<void>;
}

/** A fresh database: a file in its own temp directory, or a private in-memory one. */
export function openDatabase(target: Target, options: EngineOptions = {}): TestDatabase {
  if (target === "memory") {
    const engine = createEngine("sqlite::memory:", options);
    return { engine, url: "sqlite::memory:", path: undefined, close: () => engine.close() };
  }
  const dir = mkdtempSync(join(tmpdir(), "tempest-sqlite-"));
  const path = join(dir, "test.db");
  const url = `sqlite://${path}`;
  const engine = createEngine(url, options);
  return {
    engine,
    url,
    path,
    async close() {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A promise with its resolve function outside, to hold a transaction open until the test says so. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
