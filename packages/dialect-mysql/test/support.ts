import type { Engine, EngineOptions, QueryEvent } from "tempest-db-js";
import { createEngine, sql } from "tempest-db-js";
import "../src/index.js";

/** The real server under test. The scheme only sets the assumption until the server is inspected. */
export const TEST_URL = process.env.TEMPEST_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";

/** Offline URLs: compile-only tests never connect, so they see exactly the scheme's assumption. */
export const OFFLINE_MARIADB = "mariadb://nobody@offline.invalid/none";
export const OFFLINE_MYSQL = "mysql://nobody@offline.invalid/none";

const open: Engine[] = [];

/** An engine closed after the file's tests (see closeEngines). */
export function testEngine(options: EngineOptions = {}): Engine {
  const engine = createEngine(TEST_URL, options);
  open.push(engine);
  return engine;
}

export async function closeEngines(): Promise<void> {
  await Promise.all(open.splice(0).map((engine) => engine.close()));
}

/** An engine whose statements are recorded, to prove what did (or did not) reach the server. */
export function recordingEngine(options: EngineOptions = {}): { engine: Engine; statements: QueryEvent[] } {
  const statements: QueryEvent[] = [];
  const engine = testEngine({ ...options, onQuery: (event) => statements.push(event) });
  return { engine, statements };
}

/** The server's answer to a scalar query, read through a raw statement. */
export async function scalar(engine: Engine, text: string): Promise<unknown> {
  return engine.execute(sql.raw(text)).scalar();
}

/** Resolves when released: lets two transactions interleave in a fixed order, independent of timing. */
export function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}
