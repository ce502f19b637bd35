import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/browser/**", "test/faults/**", "test/model/**", "node_modules/**"],
    globalSetup: ["test/support/PgliteTemplate.ts"],
    // No test here bounds wall-clock time (test/support/WallClock.ts: that is test:faults's), so every file
    // may share the CPU with the others and with whatever else the machine runs. Vitest's default (one
    // core fewer than the machine has) is one worker on a 2-core machine, where a run then kept about half
    // the CPU busy: most files wait on timers, sockets and processes of their own. Two workers there.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // What a passing test logs (its expected errors, the cluster's warnings, its service processes'
    // stderr) is kept and printed only if it fails.
    silent: "passed-only",
    // Only the tests that take long enough to name their own timeout are listed by name.
    slowTestThreshold: 10_000,
    // Tests that take longer on a quiet machine than a quarter of this say so themselves.
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
