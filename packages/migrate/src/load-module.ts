import { pathToFileURL } from "node:url";
import { createJiti } from "jiti";

/**
 * Imports a TypeScript (or JavaScript) module without a compile step of the user's: jiti strips
 * the types in process, on every Node version this package supports (Node 20 has no type
 * stripping of its own). Returns the module's default export, or the module when it has none.
 * Nothing is cached between calls, so a file edited since the last load is read afresh.
 */
export async function loadModule(path: string): Promise<unknown> {
  const jiti = createJiti(pathToFileURL(path).href, { moduleCache: false, fsCache: false, interopDefault: true });
  const loaded = (await jiti.import(path)) as { default?: unknown } | undefined;
  return loaded && typeof loaded === "object" && "default" in loaded ? loaded.default : loaded;
}
