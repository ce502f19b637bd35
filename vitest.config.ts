import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

const elsewhere = ["test/browser/**", "test/faults/**", "test/model/**", "node_modules/**"]

/**
 * Files whose assertions bound wall-clock time (an answer within 3 s, a fallback within 1.5 s, a
 * provider's first answer within 300 ms, a cost ratio, an execution still under way when it is
 * cancelled, a NOTIFY wake-up within 2 s, a stop within 8 s, a cluster's shard locks within their
 * lease): they run one at a time, after the rest, as the whole suite used to. Two files at once on a
 * busy 2-core machine made them fail.
 */
const wallClockBound = [
  "test/ApprovalsHttp.test.ts",
  "test/Faults.test.ts",
  "test/HttpProvider.test.ts",
  "test/JobRunVersions.test.ts",
  "test/Interpreter.test.ts",
  "test/interpreter/ModelReader.test.ts",
  "test/EventsTwoProcesses.test.ts",
  "test/StreamProcess.test.ts"
]

export default defineConfig({
  test: {
    globalSetup: ["test/support/PgliteTemplate.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: "parallel",
          include: ["test/**/*.test.ts"],
          exclude: [...elsewhere, ...wallClockBound],
          // Vitest's default (one core fewer than the machine has) is one worker on a 2-core machine,
          // where a run then kept about half the CPU busy: most files wait on timers, sockets and
          // processes of their own. Two workers there; elsewhere the default stands.
          maxWorkers: Math.max(2, availableParallelism() - 1)
        }
      },
      {
        extends: true,
        test: {
          name: "one at a time",
          include: wallClockBound,
          maxWorkers: 1,
          sequence: { groupOrder: 1 }
        }
      }
    ]
  }
})
