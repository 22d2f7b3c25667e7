import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createJiti } from "jiti";
import type { ModelClass } from "tempest-db-js";
import { UsageError } from "./parse-command.js";

/**
 * The model named by `--model file.ts#Export` (default export without `#`), loaded without a compile
 * step of the user's: jiti strips the types in process (Node 20 has no type stripping of its own).
 */
export async function loadModel(spec: string, cwd: string): Promise<ModelClass<any>> {
  const hash = spec.lastIndexOf("#");
  const file = resolve(cwd, hash === -1 ? spec : spec.slice(0, hash));
  const name = hash === -1 ? "default" : spec.slice(hash + 1);
  const jiti = createJiti(pathToFileURL(file).href, { moduleCache: false, fsCache: false });
  const loaded = (await jiti.import(file)) as Record<string, unknown>;
  const model = loaded[name];
  if (typeof model !== "function" || typeof (model as { tablename?: unknown }).tablename !== "string") {
    throw new UsageError(`${spec}: "${name}" is not a model class (a class with a static tablename)`);
  }
  return model as ModelClass<any>;
}
