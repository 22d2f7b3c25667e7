// Runs compiled doc programs one after another in this process and records each outcome in a JSON
// file. Engines a program leaves open do not keep the process alive: it exits when the list is done.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [listFile, outFile] = process.argv.slice(2);
const programs = JSON.parse(readFileSync(listFile, "utf8"));
const results = [];
let late = [];
process.on("unhandledRejection", (error) => late.push(String(error?.stack ?? error)));

for (const program of programs) {
  late = [];
  const started = performance.now();
  let timer;
  try {
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not finish within ${program.timeoutMs} ms`)), program.timeoutMs);
    });
    await Promise.race([import(pathToFileURL(program.js).href), timeout]);
    // Give stray promises of the program one turn to surface before it is judged.
    await new Promise((resolve) => setTimeout(resolve, 10));
    results.push({ id: program.id, ok: late.length === 0, error: late.join("\n") || undefined, ms: performance.now() - started });
  } catch (error) {
    results.push({ id: program.id, ok: false, error: String(error?.stack ?? error), ms: performance.now() - started });
  } finally {
    clearTimeout(timer);
  }
  writeFileSync(outFile, JSON.stringify(results));
}
process.exit(0);
