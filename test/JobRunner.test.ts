import { assert, describe, layer } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import type { Layer } from "effect"
import type * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import type { AccountId } from "../src/schema/ApiKey.ts"
import type { Job, JobId } from "../src/schema/Job.ts"
import * as JobRunner from "../src/services/jobs/JobRunner.ts"
import * as Jobs from "../src/services/jobs/Jobs.ts"
import { servicesLive, servicesTest } from "./support/JobsHttp.ts"
import type { JobServices } from "./support/JobsHttp.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

const account = () => `acct-${Math.random().toString(36).slice(2)}` as AccountId
const asking = "Book a table for 4 at an Italian restaurant in Lisbon"

/** The state of the run of `job` at `revision`, as the engine has it. */
const runOf = (job: Job, revision: number, accountId: AccountId) =>
  JobRunner.JobRevision.executionId({ accountId, jobId: job.id as JobId, revision }).pipe(
    Effect.flatMap((id) => JobRunner.JobRevision.poll(id))
  )

/** `effect` again every 20 ms until `done` holds (10 s at most). */
const until = <A, E, R>(effect: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 500; attempt++) {
      const value = yield* effect
      if (done(value)) return value
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error("the condition did not hold within 10 s"))
  })

const settled = (accountId: AccountId, id: string, status: string) =>
  until(Effect.flatMap(Jobs.Jobs, (jobs) => jobs.get(accountId, id)), (job) => job.status === status)

const isInterrupted = (result: Option.Option<unknown>) =>
  Option.isSome(result) && result.value instanceof Object && "exit" in result.value
  && Exit.isFailure(result.value.exit as Exit.Exit<unknown, unknown>)
  && Cause.hasInterruptsOnly((result.value.exit as Exit.Failure<unknown, unknown>).cause)

const behaviour = (name: string, services: Layer.Layer<JobServices | WorkflowEngine.WorkflowEngine, unknown>) =>
  layer(services, { timeout: "60 seconds", excludeTestServices: true })(name, (it) => {
    it.effect("waits for input on a durable deferred; an answer interrupts that run and starts the next", () =>
      Effect.gen(function*() {
        const jobs = yield* Jobs.Jobs
        const owner = account()
        const created = yield* jobs.create(owner, { request: asking, constraints: [] })
        const asked = yield* settled(owner, created.id, "awaiting_input")
        assert.strictEqual(asked.jobRevision, 1)
        // Suspended, not finished: the run waits on `InputGiven`.
        const waiting = yield* until(runOf(created, 1, owner), Option.isSome)
        assert.strictEqual(Option.getOrThrow(waiting)._tag, "Suspended")

        const answered = yield* jobs.answer(owner, created.id, {
          jobRevision: 1,
          answers: { q_date: "next Friday at 8pm" }
        })
        assert.strictEqual(answered.jobRevision, 2)
        const planned = yield* settled(owner, created.id, "planning")
        assert.strictEqual(planned.jobRevision, 2)
        yield* until(runOf(created, 1, owner), isInterrupted)
        const next = yield* until(
          runOf(created, 2, owner),
          (run) => Option.isSome(run) && run.value._tag === "Complete"
        )
        assert.isTrue(Option.isSome(next))
      }))

    it.effect("cancelling a Job that waits for input interrupts its run", () =>
      Effect.gen(function*() {
        const jobs = yield* Jobs.Jobs
        const owner = account()
        const created = yield* jobs.create(owner, { request: asking, constraints: [] })
        yield* settled(owner, created.id, "awaiting_input")
        yield* until(runOf(created, 1, owner), Option.isSome)
        const cancelled = yield* jobs.cancel(owner, created.id)
        assert.strictEqual(cancelled.status, "cancelled")
        yield* until(runOf(created, 1, owner), isInterrupted)
      }))
  })

describe("the Job runner", () => {
  behaviour("on the in-memory engine", servicesTest())
  behaviour(
    `on the store's engine (${TestDatabase.kind}: ${TestDatabase.kind === "PostgreSQL" ? "SQL storage" : "in memory"})`,
    servicesLive()
  )
})
