// The browser the dashboard's tests drive (packages/queue-console, through playwright-core): Debian's
// own chromium package, never a browser build downloaded by a tool. Installed with apt-get when it is
// missing and this is a Debian-style machine where we are root (as on CI's machine); elsewhere the
// set-up says what to install, and the browser tests fail with the same message.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export const CHROMIUM = process.env.TEMPEST_CHROMIUM || "/usr/bin/chromium";

/** Returns a problem to report, or undefined when the browser is there. */
export function ensureChromium(log) {
  if (existsSync(CHROMIUM)) return undefined;
  const canInstall = process.platform === "linux" && process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
  if (!canInstall) return `${CHROMIUM} is missing: install Debian's chromium package (apt-get install chromium) or set TEMPEST_CHROMIUM`;
  log("installing Debian's chromium for the dashboard's browser tests (apt-get, about a minute)");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const args of [
    ["update", "-qq"],
    ["install", "-y", "-qq", "--no-install-recommends", "chromium"],
  ]) {
    const result = spawnSync("apt-get", args, { env, stdio: ["ignore", "ignore", "inherit"] });
    if (result.status !== 0) return `apt-get ${args.join(" ")} failed (exit ${result.status ?? result.signal})`;
  }
  return existsSync(CHROMIUM) ? undefined : `apt-get installed chromium, but ${CHROMIUM} is still missing`;
}
