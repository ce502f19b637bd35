import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import type * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import type { AccountId } from "../src/schema/ApiKey.ts"
import type { Job, JobId } from "../src/schema/Job.ts"
import * as Interpreter from "../src/services/interpreter/Interpreter.ts"
import * as Jobs from "../src/services/jobs/Jobs.ts"
import { JobStore } from "../src/services/jobs/JobStore.ts"
import * as JobRunner from "../src/services/jobs/runner/JobRunner.ts"
import * as MemorySandbox from "../src/services/providers/MemorySandbox.ts"
import { ProviderPermanent, Providers, ProviderTransient } from "../src/services/providers/Provider.ts"
import { servicesLive, servicesTest } from "./support/JobsHttp.ts"
import type { PreviewServices } from "./support/JobsHttp.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

const account = () => `acct-${Math.random().toString(36).slice(2)}` as AccountId
const asking = "Book a table for 4 at an Italian restaurant in Lisbon"
const twoQuestions = "Book a table somewhere"

/** Asks two questions for `twoQuestions`, so that an answer can leave one open. */
const interpreter = Interpreter.layerScripted({
  [twoQuestions]: (input) =>
    input.answers.length >= 2
      ? { _tag: "Understood", objective: { kind: "reservation", summary: "A table" }, constraints: [] }
      : {
        _tag: "NeedsInput",
        objective: { kind: "reservation", summary: "A table" },
        constraints: [],
        questions: [{ id: "q_date", text: "For when?", about: "date" as const }, {
          id: "q_time",
          text: "What time?",
          about: "time" as const
        }].filter((question) => !input.answers.some((answer) => answer.questionId === question.id))
      }
})

/** The state of a run of `job`, as the engine has it. */
const runOf = (job: Job, revision: number, run: number, accountId: AccountId) =>
  JobRunner.JobRun.executionId({ accountId, jobId: job.id as JobId, revision, run }).pipe(
    Effect.flatMap((id) => JobRunner.JobRun.poll(id))
  )

/** `effect` again every 20 ms until `done` holds (20 s at most). */
const until = <A, E, R>(effect: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 1000; attempt++) {
      const value = yield* effect
      if (done(value)) return value
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error("the condition did not hold within 20 s"))
  })

const settled = (accountId: AccountId, id: JobId, status: string) =>
  until(Effect.flatMap(Jobs.Jobs, (jobs) => jobs.get(accountId, id)), (job) => job.status === status)

const isComplete = (run: Option.Option<{ readonly _tag: string }>) =>
  Option.isSome(run) && run.value._tag === "Complete"
const isSuspended = (run: Option.Option<{ readonly _tag: string }>) =>
  Option.isSome(run) && run.value._tag === "Suspended"

const behaviour = (name: string, services: Layer.Layer<PreviewServices | WorkflowEngine.WorkflowEngine, unknown>) =>
  layer(services, { timeout: "60 seconds", excludeTestServices: true })(name, (it) => {
    it.effect("a run ends when the Job waits for an answer; an answer starts the next revision's run", () =>
      Effect.gen(function*() {
        const jobs = yield* Jobs.Jobs
        const owner = account()
        const created = yield* jobs.create(owner, { request: asking, constraints: [] })
        const asked = yield* settled(owner, created.id, "awaiting_input")
        assert.strictEqual(asked.jobRevision, 1)
        // Ended, not suspended: nothing of revision 1 waits in the engine.
        yield* until(runOf(created, 1, 0, owner), isComplete)

        const answered = yield* jobs.answer(owner, created.id, {
          jobRevision: 1,
          answers: { q_date: "next Friday at 8pm" }
        })
        assert.strictEqual(answered.jobRevision, 2)
        const proposed = yield* settled(owner, created.id, "awaiting_approval")
        assert.strictEqual(proposed.jobRevision, 2)
        assert.strictEqual(proposed.proposal?.status, "open")
        // It sleeps on a durable timer until its proposal expires.
        yield* until(runOf(created, 2, 0, owner), isSuspended)
      }))

    it.effect("a partial answer leaves no run of the old revision behind, and the last answer moves on", () =>
      Effect.gen(function*() {
        const jobs = yield* Jobs.Jobs
        const owner = account()
        const created = yield* jobs.create(owner, { request: twoQuestions, constraints: [] })
        yield* settled(owner, created.id, "awaiting_input")
        yield* until(runOf(created, 1, 0, owner), isComplete)
        const partly = yield* jobs.answer(owner, created.id, { jobRevision: 1, answers: { q_date: "Friday" } })
        assert.strictEqual(partly.status, "awaiting_input")
        assert.deepStrictEqual(partly.questions.map((question) => question.id), ["q_time"])
        // Nothing to run while it waits: no run of revision 2 is started, none of revision 1 is left waiting.
        yield* Effect.sleep("300 millis")
        assert.isTrue(Option.isNone(yield* runOf(created, 2, 0, owner)))
        assert.isTrue(isComplete(yield* runOf(created, 1, 0, owner)))
        yield* jobs.answer(owner, created.id, { jobRevision: 2, answers: { q_time: "8pm" } })
        const proposed = yield* settled(owner, created.id, "awaiting_approval")
        assert.strictEqual(proposed.jobRevision, 3)
        yield* until(runOf(created, 3, 0, owner), isSuspended)
      }))

    it.effect("cancelling a Job that waits for input needs no run", () =>
      Effect.gen(function*() {
        const jobs = yield* Jobs.Jobs
        const owner = account()
        const created = yield* jobs.create(owner, { request: asking, constraints: [] })
        yield* settled(owner, created.id, "awaiting_input")
        const cancelled = yield* jobs.cancel(owner, created.id)
        assert.strictEqual(cancelled.status, "cancelled")
        assert.isFalse((yield* (yield* JobStore).pendingRuns).some((ref) => ref.jobId === created.id))
      }))
  })

/** The sandbox, except that quoting fails transiently `failures` times, or is refused (4xx) every time. */
const quoting = (mode: { readonly failures: number } | "refused") =>
  Layer.effect(Providers)(Effect.gen(function*() {
    const sandbox = yield* Providers
    let calls = 0
    return {
      ...sandbox,
      // Counted when the call runs (a retry runs the same effect again), not when it is built.
      quote: (request) =>
        Effect.suspend(() => {
          calls++
          if (mode === "refused") return Effect.fail(new ProviderPermanent({ message: "no quotes for you" }))
          if (calls <= mode.failures) return Effect.fail(new ProviderTransient({ message: "busy" }))
          return sandbox.quote(request)
        })
    }
  })).pipe(Layer.provideMerge(MemorySandbox.layerMemory))

layer(servicesTest(undefined, {}, quoting({ failures: 3 })), {
  timeout: "60 seconds",
  excludeTestServices: true
})("a provider that cannot quote for a while", (it) => {
  it.effect("is waited out: the Job stays planning, then is proposed", () =>
    Effect.gen(function*() {
      const jobs = yield* Jobs.Jobs
      const owner = account()
      const created = yield* jobs.create(owner, { request: `${asking} next Friday at 8pm`, constraints: [] })
      const proposed = yield* settled(owner, created.id, "awaiting_approval")
      assert.strictEqual(proposed.proposal?.status, "open")
    }))
})

layer(servicesTest(undefined, {}, quoting("refused")), {
  timeout: "60 seconds",
  excludeTestServices: true
})("a provider that refuses to quote", (it) => {
  it.effect("has no offers: the User is asked", () =>
    Effect.gen(function*() {
      const jobs = yield* Jobs.Jobs
      const owner = account()
      const created = yield* jobs.create(owner, { request: `${asking} next Friday at 8pm`, constraints: [] })
      const asked = yield* settled(owner, created.id, "awaiting_input")
      assert.deepStrictEqual(asked.questions.map((question) => question.id), ["q_offers"])
    }))
})

describe("the Job runner", () => {
  behaviour("on the in-memory engine", servicesTest(interpreter))
  behaviour(
    `on the store's engine (${TestDatabase.kind}: ${TestDatabase.kind === "PostgreSQL" ? "SQL storage" : "in memory"})`,
    servicesLive(interpreter)
  )
})
