import { ConfigProvider, Context, Duration, Effect, Exit, Layer, PubSub, References, Scope } from "effect"
import type { WorkflowEngine } from "effect/workflow/WorkflowEngine"
import type { AccountId } from "../../src/schema/ApiKey.ts"
import type { JobId } from "../../src/schema/Job.ts"
import type { Interpreter } from "../../src/services/interpreter/Interpreter.ts"
import * as EventSignal from "../../src/services/jobs/EventSignal.ts"
import * as Jobs from "../../src/services/jobs/Jobs.ts"
import * as JobServices from "../../src/services/jobs/JobServices.ts"
import { JobStore } from "../../src/services/jobs/JobStore.ts"
import type { Proposals } from "../../src/services/jobs/Proposals.ts"
import * as Revision from "../../src/services/jobs/rules/Revision.ts"
import * as JobRunner from "../../src/services/jobs/runner/JobRunner.ts"
import type * as RunQueue from "../../src/services/jobs/runner/RunQueue.ts"
import * as Timing from "../../src/services/jobs/runner/Timing.ts"
import * as MemorySandbox from "../../src/services/providers/MemorySandbox.ts"
import { Providers } from "../../src/services/providers/Provider.ts"
import type { SandboxLedger } from "../../src/services/providers/Sandbox.ts"
import { SlowCall } from "../../src/services/providers/Sandbox.ts"
import * as SqlSandbox from "../../src/services/providers/SqlSandbox.ts"
import * as Database from "../../src/services/store/Database.ts"
import * as Migrations from "../../src/services/store/Migrations.ts"
import * as TestDatabase from "../support/TestDatabase.ts"
import { scripted } from "./Model.ts"

/**
 * The Job services the model drives, with their runner apart: the runner (the workflow engine, its
 * starts and its sweep) can be stopped and built again over the same stores, as a process that
 * restarts does. In memory the engine's state goes with it, and the sweep at its start must find every
 * run a Job still needs; on the store's SQL engine the runs are resumed from their last recorded step.
 */

/**
 * Every wait in milliseconds, and no periodic sweep within a test (only the one at the runner's start):
 * a run that only a later sweep would start hangs, and is caught.
 */
export const timing: Timing.Timing = {
  providerBackoff: { first: Duration.millis(1), max: Duration.millis(2) },
  waitOut: { first: Duration.millis(1), max: Duration.millis(2) },
  undoRetry: Duration.millis(1),
  blockedWait: Duration.millis(1),
  sweepInterval: Duration.hours(1)
}

/**
 * Every `cancel` the runner sent, by key: a call to undo that has no `recovery.step` `compensate` of
 * its own would be work a person watching the Job cannot see.
 */
export class CancelCalls extends Context.Service<CancelCalls, Map<string, number>>()("test/CancelCalls") {}

/** The provider with every `cancel` counted in `CancelCalls`. */
const countingCancels = Layer.effect(Providers)(Effect.gen(function*() {
  const providers = yield* Providers
  const calls = yield* CancelCalls
  return {
    ...providers,
    cancel: (key: string) =>
      Effect.suspend(() => {
        calls.set(key, (calls.get(key) ?? 0) + 1)
        return providers.cancel(key)
      })
  }
}))

/** `stores` with its provider's cancels counted. */
const withCancelsCounted = <A, E>(stores: Layer.Layer<A | Providers, E>) =>
  countingCancels.pipe(
    Layer.provideMerge(stores),
    Layer.provideMerge(Layer.sync(CancelCalls)(() => new Map<string, number>()))
  )

export type Services =
  | CancelCalls
  | Jobs.Jobs
  | Proposals
  | JobStore
  | SandboxLedger
  | EventSignal.EventSignal

/** What the runner needs of the stores. */
type RunnerNeeds = Services | RunQueue.RunQueue | Providers | Interpreter

export interface Harness {
  readonly services: Context.Context<Services>
  /** Stops the runner (interrupting what it was doing between two provider calls) and builds it again. */
  readonly restart: Effect.Effect<void>
  /** Waits until the Jobs have no work left (no run needed, every event published); fails after `within`. */
  readonly settled: (accountId: AccountId, ids: ReadonlyArray<JobId>) => Effect.Effect<void>
  /** Waits until the Job has at least `count` events (or has settled with fewer). */
  readonly eventsAtLeast: (accountId: AccountId, id: JobId, count: number) => Effect.Effect<void>
}

const timingLayer = Layer.merge(
  Layer.succeed(Timing.Timing)(timing),
  Layer.succeed(SlowCall)(Duration.millis(4))
)

const make = <E>(
  context: Context.Context<RunnerNeeds>,
  engine: Layer.Layer<WorkflowEngine, E>,
  within: Duration.Duration,
  lookAgain?: Duration.Duration
) =>
  Effect.gen(function*() {
    const startRunner = Effect.gen(function*() {
      const scope = yield* Scope.make()
      // A memo map of its own: nothing of the last runner is reused.
      const memoMap = yield* Layer.makeMemoMap
      yield* Layer.buildWithMemoMap(JobRunner.layer().pipe(Layer.provideMerge(engine)), memoMap, scope).pipe(
        Effect.provideContext(context),
        Effect.orDie
      )
      return scope
    })
    let runner = yield* startRunner
    yield* Effect.addFinalizer(() => Scope.close(runner, Exit.void))

    const jobs = Context.get(context, Jobs.Jobs)
    const store = Context.get(context, JobStore)
    const signal = Context.get(context, EventSignal.EventSignal)

    /** Whether the Job has no work left (no run it needs) and every event of it is published. */
    const idle = (accountId: AccountId, id: JobId) =>
      Effect.gen(function*() {
        if (Revision.runsOf(yield* store.find(accountId, id)).length > 0) return false
        return !(yield* jobs.eventPage(accountId, { jobId: id, after: 0, limit: 1000 })).pending
      }).pipe(Effect.orDie)

    /** `done` checked again at every wake-up of the account's event readers (a commit), within `within`. */
    const whenever = (done: Effect.Effect<boolean>, what: () => Effect.Effect<string>) =>
      Effect.scoped(Effect.gen(function*() {
        const wakes = yield* signal.subscribe
        while (!(yield* done)) {
          const woken = PubSub.takeAll(wakes)
          yield* lookAgain === undefined ? woken : Effect.timeoutOption(woken, lookAgain)
        }
      })).pipe(
        Effect.timeoutOrElse({
          duration: within,
          orElse: () => Effect.flatMap(what(), (text) => Effect.die(new Error(text)))
        })
      )

    const describe = (accountId: AccountId, ids: ReadonlyArray<JobId>) =>
      Effect.forEach(ids, (id) => Effect.orDie(store.find(accountId, id))).pipe(
        Effect.map((records) =>
          `still at work after ${Duration.format(within)}: ${
            records.filter((record) => Revision.runsOf(record).length > 0).map((record) =>
              JSON.stringify({ id: record.id, revision: record.revision, run: record.run, status: record.status })
            ).join(", ")
          }`
        )
      )

    return {
      services: context,
      restart: Effect.gen(function*() {
        yield* Scope.close(runner, Exit.void)
        runner = yield* startRunner
      }),
      settled: (accountId, ids) =>
        whenever(
          Effect.map(Effect.forEach(ids, (id) => idle(accountId, id)), (all) => all.every(Boolean)),
          () => describe(accountId, ids)
        ),
      eventsAtLeast: (accountId, id, count) =>
        whenever(
          Effect.gen(function*() {
            if (yield* idle(accountId, id)) return true
            return (yield* Effect.orDie(jobs.events(accountId, id))).length >= count
          }),
          () => Effect.succeed(`the Job ${id} has fewer than ${count} events after ${Duration.format(within)}`)
        )
    } satisfies Harness
  })

/** Builds `layer` with a memo map of its own, so that each harness has stores of its own. */
const fresh = <A, E>(layer: Layer.Layer<A, E>) =>
  Effect.gen(function*() {
    const memoMap = yield* Layer.makeMemoMap
    return yield* Layer.buildWithMemoMap(layer, memoMap, yield* Effect.scope).pipe(Effect.orDie)
  })

const memoryStores = withCancelsCounted(
  Layer.mergeAll(JobServices.layerMemory, MemorySandbox.layerMemory, scripted, timingLayer)
)

/** The in-memory stores and the runner on the in-memory engine, all new. */
export const memory = Effect.gen(function*() {
  return yield* make(yield* fresh(memoryStores), JobRunner.engineTest, Duration.seconds(10))
})

/**
 * The SQL layers (`JobServices.layer`, as `servicesLive` has them) on a store of their own (PostgreSQL
 * at `TEST_DATABASE_URL`, or PGlite), the runner on the store's SQL engine.
 */
export const live = Effect.gen(function*() {
  const config = ConfigProvider.layer(ConfigProvider.fromUnknown(yield* TestDatabase.freshStore))
  const stores = withCancelsCounted(
    Layer.mergeAll(JobServices.layer, SqlSandbox.layer, scripted, timingLayer).pipe(
      Layer.provide(Migrations.layer),
      Layer.provideMerge(Database.layer),
      Layer.provide(config)
    )
  )
  const context = yield* fresh(stores)
  return yield* make(
    context,
    JobRunner.engine.pipe(
      Layer.provide(Layer.merge(config, Layer.succeedContext(context))),
      // A runner built again in the same process warns "No healthy runners available" every second until
      // effect/cluster marks it healthy again; the model's checks say what matters.
      Layer.provide(Layer.succeed(References.MinimumLogLevel)("Error"))
    ),
    Duration.seconds(60),
    // Publication on PostgreSQL waits for older transactions to end, which wakes no one.
    Duration.millis(20)
  )
})
