/**
 * The environment of a forked worker process. The worker runs the built JS as in production, so the
 * test runner's NODE_OPTIONS are left out, except for the preload that a test run on another Node
 * version needs to load better-sqlite3 for that version (scripts/other-nodes.mjs sets
 * TEMPEST_NATIVE_PRELOAD to it): without it every SQLite worker there would fail to start.
 */
export function workerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _inherited, ...env } = process.env;
  const preload = process.env.TEMPEST_NATIVE_PRELOAD;
  return { ...env, ...(preload ? { NODE_OPTIONS: `--require=${preload}` } : {}), ...extra };
}
