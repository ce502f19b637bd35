import { defineConfig } from "vitest/config"

/**
 * `npm run test:faults`: the faults (test/faults) and, again, the files of `npm test` whose behaviour has
 * a bound on time, now with that bound (TEST_WALL_CLOCK, test/support/WallClock.ts): an answer within 3 s
 * while the database is down, a NOTIFY wake-up within 2 s, a stop within 8 s, a model's fallback within
 * 1.5 s, a statement on PGlite's port within 20 ms. One file at a time, on a private PostgreSQL server:
 * the bounds are the machine's, and a file beside them would take its CPU.
 */
export default defineConfig({
  test: {
    include: [
      "test/faults/**/*.test.ts",
      "test/Faults.test.ts",
      "test/EventsTwoProcesses.test.ts",
      "test/StreamProcess.test.ts",
      "test/interpreter/ModelReader.test.ts",
      "test/PgliteSessions.test.ts"
    ],
    globalSetup: ["test/support/PgliteTemplate.ts", "test/support/PrivatePostgresSetup.ts"],
    env: { TEST_WALL_CLOCK: "1" },
    fileParallelism: false,
    silent: "passed-only",
    testTimeout: 120_000,
    hookTimeout: 60_000
  }
})
