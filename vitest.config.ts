import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/browser/**", "test/faults/**", "test/model/**", "node_modules/**"],
    globalSetup: ["test/support/PgliteTemplate.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
