import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/browser/**", "test/faults/**", "test/model/**", "node_modules/**"],
    globalSetup: ["test/support/PgliteTemplate.ts"],
    // Vitest's default (one core fewer than the machine has) is one worker on a 2-core machine, where
    // a run then keeps about half the CPU busy: most files wait on timers, sockets and processes of
    // their own. Two workers there; elsewhere the default stands.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
