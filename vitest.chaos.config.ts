import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    // Not `*.test.ts`: `npm test` takes every such file under test/ that it does not exclude by name.
    include: ["test/chaos/**/*.chaos.ts"],
    // Two minutes of kills and the settling after them, on a shared 2-core machine.
    testTimeout: 420_000,
    hookTimeout: 180_000
  }
})
