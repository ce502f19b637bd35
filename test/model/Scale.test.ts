import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Harness from "./Harness.ts"
import { runModel } from "./Run.ts"

/**
 * `npm run test:model`: the model of the Job services (test/model) through 10,000 generated command
 * sequences in one process, in memory, each on stores and a runner of its own, with the runner's
 * waits in milliseconds (`Harness.timing`). `MODEL_RUNS` changes the number, `MODEL_SEED` (and
 * `MODEL_PATH`) replays a run; the seed is printed whatever happens.
 */
const sequences = Number(process.env.MODEL_RUNS ?? 10_000)

it.live(`the Job services hold their model through ${sequences} sequences in memory`, () =>
  Effect.gen(function*() {
    const { details, seen, tally } = yield* runModel({
      name: "in memory, at scale",
      sequences,
      maxCommands: 25,
      harness: { each: Harness.memory }
    })
    assert.strictEqual(details.numRuns, sequences)
    // Every kind of thing happened, many times over.
    for (const type of ["approval.recorded", "job.completed", "job.cancelled", "job.failed", "verification.failed"]) {
      assert.isAbove(seen.get(type) ?? 0, sequences / 1000, type)
    }
    assert.isAbove(tally.restarts, sequences / 10)
    assert.isAbove(tally.races, sequences / 10)
  }))
