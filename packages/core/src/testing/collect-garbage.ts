import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

let gc: (() => void) | undefined;

/** The collector, without `--expose-gc` on the command line (vitest workers, child processes). */
function collector(): () => void {
  if (gc) return gc;
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return (gc = exposed);
  setFlagsFromString("--expose-gc");
  gc = runInNewContext("gc") as () => void;
  return gc;
}

/**
 * Runs full garbage collections, each followed by a pause for finalizers and the I/O they start,
 * until `done()` holds or `rounds` have run: for tests of what happens once an object is collected
 * (an abandoned stream's connection coming back). Returns whether `done()` held.
 */
export async function collectGarbageUntil(done: () => boolean | Promise<boolean>, rounds = 100): Promise<boolean> {
  const collect = collector();
  for (let i = 0; i < rounds; i++) {
    if (await done()) return true;
    collect();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return done();
}
