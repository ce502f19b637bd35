import { defineConfig } from "vitest/config"

// npm run test:model: the model-based test at scale (test/model/Scale.test.ts), apart from `npm test`.
export default defineConfig({
  test: {
    include: ["test/model/**/*.test.ts"],
    testTimeout: 1_800_000,
    hookTimeout: 60_000
  }
})
