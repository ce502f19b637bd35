import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Harness from "./model/Harness.ts"
import { runModel } from "./model/Run.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

/**
 * The model of the Job services (test/model: commands, the model, the harness) in the default suite:
 * 300 sequences in memory, and on the Live layers with the store's SQL engine, whose restarts resume
 * the runs from their last recorded step: 300 sequences on PostgreSQL (`TEST_DATABASE_URL`, as CI
 * runs it), 30 on the embedded store. `npm run test:model` runs 10,000 in memory.
 */

const onPostgres = TestDatabase.kind === "PostgreSQL"

/** The run went past planning: decisions were taken, Jobs completed and were cancelled, the runner restarted. */
const wentDeep = (result: Effect.Success<ReturnType<typeof runModel>>) => {
  for (const type of ["approval.recorded", "job.completed", "job.cancelled"]) {
    assert.isAbove(result.seen.get(type) ?? 0, 0, type)
  }
  assert.isAbove(result.tally.restarts, 0)
}

describe("the Job services against their model", () => {
  it.live(
    "in memory: 300 sequences",
    () =>
      runModel({ name: "in memory", sequences: 300, maxCommands: 25, harness: { each: Harness.memory } }).pipe(
        Effect.map(wentDeep)
      ),
    300_000
  )

  const sequences = onPostgres ? 300 : 30
  it.live(
    `on ${TestDatabase.kind}, the Live layers: ${sequences} sequences`,
    () =>
      Effect.scoped(Effect.gen(function*() {
        const harness = yield* Harness.live
        wentDeep(
          yield* runModel({ name: `on ${TestDatabase.kind}`, sequences, maxCommands: 15, harness: { shared: harness } })
        )
      })),
    600_000
  )
})
