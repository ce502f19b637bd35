import { assert } from "@effect/vitest"
import { Effect } from "effect"
import type { Scope } from "effect"
import fc from "fast-check"
import type { AccountId } from "../../src/schema/ApiKey.ts"
import type { JobEvent } from "../../src/schema/JobEvent.ts"
import type { Command } from "./Commands.ts"
import { commands } from "./Commands.ts"
import type { Model, Real, Tally } from "./Driver.ts"
import { eventsOf, realFor, run, settled } from "./Driver.ts"
import type { Harness } from "./Harness.ts"
import { checkHistory } from "./Model.ts"

/**
 * Runs the model's command sequences (fast-check) and prints what a reader needs to trust or replay
 * the run: the seed (random unless `MODEL_SEED` is given; with `MODEL_PATH`, fast-check's path, it
 * replays one counterexample), how many sequences and commands ran, how long it took, and what
 * happened (decisions, completions, cancellations, failures, faults injected, restarts, races).
 */

export interface ModelRun {
  readonly name: string
  readonly sequences: number
  readonly maxCommands: number
  /** A new harness (stores and runner) for each sequence, or one for all, each sequence an account of its own. */
  readonly harness: { readonly each: Effect.Effect<Harness, never, Scope.Scope> } | { readonly shared: Harness }
}

const seedOf = () => {
  const given = process.env.MODEL_SEED
  return given === undefined || given === "" ? Math.floor(Math.random() * 0x7fffffff) : Number(given)
}

/** All of the account's events, page by page, in position order. */
const history = async (real: Real) => {
  const log: Array<JobEvent> = []
  for (;;) {
    const page = await run(real.jobs.eventPage(real.accountId, { after: log.at(-1)?.position ?? 0, limit: 1000 }))
    log.push(...page.events)
    if (page.events.length < 1000) return log
  }
}

/** After the last command: the design's invariants over the whole history, which is every Job's events, once. */
const checkEnd = async (real: Real, model: Model, seen: Map<string, number>) => {
  await settled(real, model.jobs.map((job) => job.id))
  const log = await history(real)
  checkHistory(log)
  let events = 0
  for (const job of model.jobs) events += (await eventsOf(real, job.id)).length
  assert.strictEqual(log.length, events, "the account's history is its Jobs' events")
  for (const event of log) seen.set(event.type, (seen.get(event.type) ?? 0) + 1)
}

/** The command, counted when it runs (fast-check skips those whose `check` fails). */
const counted = (command: Command): Command => ({
  check: (model) => command.check(model),
  run: async (model, real) => {
    real.tally.commands++
    await command.run(model, real)
  },
  toString: () => command.toString()
})

export const runModel = (options: ModelRun) =>
  Effect.gen(function*() {
    const seed = seedOf()
    const path = process.env.MODEL_PATH
    const tally: Tally = { commands: 0, restarts: 0, races: 0, faults: 0, refusals: 0 }
    const seen = new Map<string, number>()
    let sequences = 0
    const prefix = `model (${options.name})`
    console.log(`${prefix}: seed ${seed}, ${options.sequences} sequences of at most ${options.maxCommands} commands`)

    const property = fc.asyncProperty(
      fc.commands(commands.map((command) => command.map(counted)), { maxCommands: options.maxCommands, size: "+1" }),
      async (sequence) => {
        const accountId = `acct-model-${seed}-${++sequences}` as AccountId
        const body = (harness: Harness) =>
          Effect.promise(async () => {
            const real = realFor(harness, accountId, tally)
            const model: Model = { jobs: [], seen: new Map() }
            await fc.asyncModelRun(() => ({ model, real }), sequence)
            await checkEnd(real, model, seen)
          })
        await Effect.runPromise(
          "shared" in options.harness
            ? body(options.harness.shared)
            : Effect.scoped(Effect.flatMap(options.harness.each, body))
        )
      }
    )
    const started = performance.now()
    const details = yield* Effect.promise(() =>
      fc.check(property, {
        numRuns: options.sequences,
        seed,
        ...(path === undefined || path === "" ? {} : { path })
      })
    )
    const seconds = ((performance.now() - started) / 1000).toFixed(1)
    const count = (type: string) => seen.get(type) ?? 0
    console.log(
      `${prefix}: seed ${seed}, ${details.numRuns} sequences, ${tally.commands} commands, ${seconds} s; `
        + `${count("approval.recorded")} decisions, ${count("job.completed")} completed, `
        + `${count("job.cancelled")} cancelled, ${count("job.failed")} failed, ${tally.faults} faults injected `
        + `(${count("execution.failed")} executions failed, ${count("verification.failed")} verifications failed), `
        + `${tally.restarts} restarts, ${tally.races} interruptions, ${tally.refusals} refusals`
    )
    if (details.failed) {
      console.error(`${prefix}: FAILED with seed ${seed}\n${fc.defaultReportMessage(details)}\n`, details.errorInstance)
      assert.fail(`${prefix} failed: seed ${seed}, path ${details.counterexamplePath}`)
    }
    return { details, seen, tally }
  })
