/**
 * A deploy that changes the shape of the run's workflow (JobRunner.ts, "Versions"): runs begun in the
 * old shape go on in it, retired but still registered, and new runs begin in the new one, over the
 * durable engine on the store (PGlite, or PostgreSQL with TEST_DATABASE_URL).
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Layer, Scope } from "effect"
import type { AccountId, ApiKeyId, Principal } from "../src/schema/ApiKey.ts"
import type { Job, JobId } from "../src/schema/Job.ts"
import * as Interpreter from "../src/services/interpreter/Interpreter.ts"
import { Jobs } from "../src/services/jobs/Jobs.ts"
import * as JobServices from "../src/services/jobs/JobServices.ts"
import * as JobRunner from "../src/services/jobs/runner/JobRunner.ts"
import * as Timing from "../src/services/jobs/runner/Timing.ts"
import { SandboxLedger } from "../src/services/providers/Sandbox.ts"
import * as SqlSandbox from "../src/services/providers/SqlSandbox.ts"
import * as Database from "../src/services/store/Database.ts"
import * as Migrations from "../src/services/store/Migrations.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

/** Which shapes ran each run (`jobId/revision/run`): a replay records the same again. */
const ran = new Map<string, Set<number>>()
const observed = (shape: JobRunner.RunShape): JobRunner.RunShape => ({
  version: shape.version,
  body: (ref) =>
    Effect.andThen(
      Effect.sync(() => {
        const key = `${ref.jobId}/${ref.revision}/${ref.run}`
        ran.set(key, (ran.get(key) ?? new Set()).add(shape.version))
      }),
      shape.body(ref)
    )
})
const runsOf = (job: Job) => [...ran].filter(([key]) => key.startsWith(`${job.id}/`))

/** Version 2, the current shape: a stretch of steps per activity, where version 1 had one step each. */
const shapeV2 = observed(JobRunner.shapeV2)
const shapeV1 = observed(JobRunner.shapeV1)

const stores = JobServices.layer.pipe(
  Layer.provideMerge(SqlSandbox.layer),
  Layer.provideMerge(Interpreter.layerOffline),
  Layer.provide(Migrations.layer),
  Layer.provideMerge(Database.layer),
  Layer.provideMerge(TestDatabase.configLayer({ PROPOSAL_TTL: "3 seconds" }))
)

const owner = `acct-${Math.random().toString(36).slice(2)}` as AccountId
const principal: Principal = {
  accountId: owner,
  keyId: "key_versions" as ApiKeyId,
  scopes: new Set(["approvals:write"] as const)
}
const request = "Book a table for 2 at an Italian restaurant in Lisbon on 4 December 2026 at 8pm"
const budget = { type: "budget", max: { amount: "200.00", currency: "EUR" } } as const

/**
 * `effect` again every 20 ms until `done` holds. Gives up after 120 s: a liveness guard, since the new
 * process takes the old one's shards only once their locks lapse, which a loaded machine makes slow.
 */
const until = <A, E, R>(effect: Effect.Effect<A, E, R>, done: (a: A) => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 120_000
    while (Date.now() < deadline) {
      const value = yield* effect
      if (done(value)) return value
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error("the condition did not hold within 120 s"))
  })

const jobIn = (id: JobId, status: Job["status"]) =>
  until(Effect.flatMap(Jobs, (jobs) => jobs.get(owner, id)), (job) => job.status === status)

const approve = (job: Job) =>
  Effect.flatMap(Jobs, (jobs) =>
    jobs.decide(principal, job.id, {
      proposalHash: job.proposal!.proposalHash,
      jobRevision: job.jobRevision,
      decision: "approve"
    }))

/**
 * Approves the Job's open proposal, one other than `stale`. The proposals live 3 s, and a loaded machine
 * can take longer than that from a proposal to its approval: a lapsed one is replaced by the Job's next,
 * which is approved instead. Answers the Job as it was approved.
 */
const approveOpen = (id: JobId, stale?: string): Effect.Effect<Job, unknown, Jobs> =>
  Effect.gen(function*() {
    const job = yield* until(
      Effect.flatMap(Jobs, (jobs) => jobs.get(owner, id)),
      (job) => job.status === "awaiting_approval" && job.proposal?.proposalHash !== stale
    )
    return yield* approve(job).pipe(
      Effect.as(job),
      Effect.catchTag("ProposalLapsed", () => approveOpen(id, job.proposal!.proposalHash))
    )
  })

/** A process of the service: the engine and the runner with `shapes`, until its scope closes. */
const deploy = (shapes: JobRunner.RunShapes) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    yield* Layer.buildWithScope(
      JobRunner.layer({ shapes }).pipe(
        Layer.provide(
          Layer.succeed(Timing.Timing)({ ...Timing.production, sweepInterval: Duration.seconds(1) })
        ),
        Layer.provideMerge(JobRunner.engine)
      ),
      scope
    )
    return scope
  })

describe("a deploy that changes the shape of the run's workflow", () => {
  layer(stores, { timeout: "120 seconds", excludeTestServices: true })(`on ${TestDatabase.kind}`, (it) => {
    it.effect("runs begun in the old shape finish in it; new runs begin in the new one", () =>
      Effect.gen(function*() {
        const jobs = yield* Jobs
        const ledger = yield* SandboxLedger

        // The old code: one Job waits for a decision (its run sleeps on a durable timer), another is in
        // the middle of a 2 s provider call when the process stops.
        const old = yield* deploy({ current: shapeV1, retired: [] })
        const waiting = yield* jobs.create(owner, { request, constraints: [budget] })
        const executing = yield* jobs.create(owner, {
          request,
          constraints: [budget, { type: "note", text: "sandbox:slow" }]
        })
        const waitingJob = yield* jobIn(waiting.id, "awaiting_approval")
        yield* approveOpen(executing.id)
        yield* jobIn(executing.id, "executing")
        yield* Effect.sleep("500 millis")
        yield* Scope.close(old, Exit.void)
        const before = new Set(ran.keys())

        // The new code runs version 2 for new runs and keeps version 1 for the runs begun in it.
        const next = yield* deploy({ current: shapeV2, retired: [shapeV1] })
        const completed = yield* jobIn(executing.id, "completed")
        assert.isNotNull(completed.outcome)
        // The first proposal expires (3 s) and the Job plans again; the new proposal's approval begins a
        // run, in version 2.
        yield* approveOpen(waiting.id, waitingJob.proposal?.proposalHash)
        const done = yield* jobIn(waiting.id, "completed")
        assert.isNotNull(done.outcome)

        // No run ran in two shapes; every run begun before the deploy went on in version 1 (the executing
        // Job's included), and the run its approval began after it, in version 2.
        const shown = JSON.stringify([...ran].map(([key, versions]) => [key, [...versions]]))
        for (const [key, versions] of ran) {
          assert.deepStrictEqual([...versions], before.has(key) ? [1] : [2], `${key} in ${shown}`)
        }
        assert.isTrue(runsOf(completed).every(([key]) => before.has(key)), shown)
        assert.isTrue(runsOf(done).some(([key]) => !before.has(key)), shown)
        for (const job of [completed, done]) {
          const entries = yield* ledger.entries(job.id)
          assert.deepStrictEqual(entries.map((entry) => [entry.effects, entry.state]), [[1, "succeeded"]], job.id)
        }
        yield* Scope.close(next, Exit.void)
      }), 300_000)
  })
})
