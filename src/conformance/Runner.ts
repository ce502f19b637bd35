import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { Check } from "./Check.ts"
import { Deadline } from "./Check.ts"
import { Mismatch } from "./Mismatch.ts"

export interface Summary {
  readonly passed: number
  readonly failed: number
  readonly skipped: number
}

/** The last line of a run: `N passed, M failed`, and `, K skipped` when some were. */
export const summaryLine = ({ failed, passed, skipped }: Summary) =>
  `${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`

const failureOf = (cause: Cause.Cause<Mismatch>): Mismatch => {
  const error = Cause.findErrorOption(cause)
  if (error._tag === "Some") return error.value
  return new Mismatch({ expected: "no defect in the kit", got: Cause.pretty(cause).split("\n")[0] ?? "a defect" })
}

const runOne = (item: Check, timeout: Duration.Duration) =>
  Effect.suspend(() =>
    item.run.pipe(
      // Waits give up a little before the check does, so that they can say what they were waiting for.
      Effect.provideService(Deadline, Date.now() + Math.max(0, Duration.toMillis(timeout) - 500)),
      Effect.timeoutOrElse({
        duration: timeout,
        orElse: () =>
          Effect.fail(
            new Mismatch({ expected: `an end within ${Duration.format(timeout)}`, got: "a request that did not end" })
          )
      }),
      Effect.exit
    )
  )

/**
 * Runs the checks one after another (they share Jobs and build on what the earlier ones did), printing a
 * line for each as it ends: `ok`, `FAIL` with what was expected and what came, or `skip` with why.
 */
export const run = (checks: ReadonlyArray<Check>, timeout: Duration.Duration) =>
  Effect.gen(function*() {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const item of checks) {
      if (item.skip !== undefined) {
        skipped++
        yield* Console.log(`skip ${item.name} (${item.skip})`)
        continue
      }
      const exit = yield* runOne(item, timeout)
      if (exit._tag === "Success") {
        passed++
        yield* Console.log(`ok   ${item.name}`)
      } else {
        failed++
        const mismatch = failureOf(exit.cause)
        yield* Console.log(`FAIL ${item.name}: expected ${mismatch.expected}; got ${mismatch.got}`)
      }
    }
    return { passed, failed, skipped } satisfies Summary
  })
