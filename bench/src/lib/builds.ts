import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Packages } from "./models.js";

/** One build of the packages: this checkout's, or another built checkout's (a bench's `--before`). */
export interface Build extends Packages {
  readonly label: string;
}

/** Loads another built checkout's core, dialects and recipes (its `packages/<name>/dist`). */
export async function loadBuild(label: string, root: string): Promise<Build> {
  const at = (p: string) => pathToFileURL(join(root, "packages", p, "dist", "index.js")).href;
  const core = await import(at("core"));
  for (const d of ["dialect-postgres", "dialect-mysql", "dialect-sqlite"]) await import(at(d));
  return { label, core, recipes: await import(at("queue-recipes")) };
}
