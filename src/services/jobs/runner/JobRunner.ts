import * as NodeClusterSocket from "@effect/platform-node/NodeClusterSocket"
import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as ClusterWorkflowEngine from "effect/cluster/ClusterWorkflowEngine"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as SingleRunner from "effect/cluster/SingleRunner"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import * as Activity from "effect/workflow/Activity"
import * as DurableClock from "effect/workflow/DurableClock"
import * as Workflow from "effect/workflow/Workflow"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import { AccountId } from "../../../schema/ApiKey.ts"
import { JobId } from "../../../schema/Job.ts"
import { DatabaseConfig } from "../../store/Database.ts"
import { JobStore } from "../JobStore.ts"
import { Proposals } from "../Proposals.ts"
import type { RunRef } from "../rules/JobRecord.ts"
import { RunQueue } from "./RunQueue.ts"
import * as Steps from "./Steps.ts"
import * as Timing from "./Timing.ts"

/**
 * The work of one run of a revision of a Job (`JobRecord.RunRef`), run by effect/workflow's engine on
 * effect/cluster's SQL storage: each step is recorded in the store's own database, so that after a
 * crash the engine delivers the run again and it goes on from its last recorded step, in whichever
 * process then holds the Job's shard.
 *
 * A run is a sequence of steps (`Steps.advance`): interpret, plan, claim, call the provider, verify,
 * undo; each step reads the Job and records what it did in the store. The engine runs them in stretches,
 * each an activity (`shapeV2`; version 1 made each step one). It ends when the Job waits for an answer or
 * has ended; while a proposal waits for a decision it sleeps on a durable timer until the proposal
 * expires. What moves a Job on (an answer, a decision, an expiry) begins a new revision or a new run. A
 * run is never interrupted: a newer revision or a cancellation is seen by the run's next step, which
 * stops before any further side effect and undoes what stands.
 *
 * Versions. A run that began before a deploy goes on after it, replayed by the new code: the engine
 * gives each recorded step (by its name) its recorded result, and runs the rest. What a step does
 * (`Steps.advance` and the rules under it) may change freely: a step reads the Job from the store and
 * records its change there, so the next step of a running Job simply runs the new code. What a run's
 * replay depends on may not: the names and order of its activities and durable timers, and the schema
 * of a step's result. Changing those makes a new version of the run's shape (`RunShape`): each run
 * carries the version it began with in its payload, which the engine stores with it, so that a replay
 * after a deploy takes the shape it began with; new runs begin on `current`, and each earlier shape
 * stays in `retired` until no run of it is left. The workflow's name, and so each run's id, stays the
 * same: starting a run that exists (the sweep does, every 10 s) changes nothing, whatever its version.
 */
export const JobRun = Workflow.make("JobRun", {
  payload: {
    accountId: AccountId,
    jobId: JobId,
    revision: Schema.Int,
    run: Schema.Int,
    // Absent on runs begun before versions were: those are version 1.
    version: Schema.optionalKey(Schema.Int)
  },
  idempotencyKey: ({ jobId, revision, run }) => `${jobId}/${revision}/${run}`
})

/** One shape of a run: its activities and durable timers, by name and order. */
export interface RunShape {
  readonly version: number
  readonly body: (
    ref: RunRef
  ) => Effect.Effect<void, never, Steps.Steps | WorkflowEngine.WorkflowEngine | WorkflowEngine.WorkflowInstance>
}

/** The shapes this code runs: new runs begin on `current`; `retired` ones finish the runs begun on them. */
export interface RunShapes {
  readonly current: RunShape
  readonly retired: ReadonlyArray<RunShape>
}

/** The most steps one run takes: far more than any run needs; a guard against a loop. */
const maxSteps = 500

/** The most steps one activity of version 2 takes; the run then goes on in its next activity. */
const stepsPerStretch = 10

/**
 * An activity named `name` that takes up to `steps` steps of the run, one after another, until the run
 * stops or waits for a proposal's expiry (after `steps`, it answers "continue"): at least once, so run
 * again after a crash it starts from where the store stands and changes nothing twice, since each step
 * reads the Job and records what it did there. A store that cannot answer is waited out
 * (`Timing.waitOut`): the step is retried until it can.
 */
const activity = (name: string, ref: RunRef, steps: number) =>
  Effect.flatMap(Effect.all([Steps.Steps, Timing.Timing]), ([work, timing]) => {
    const step = work.advance(ref).pipe(
      Effect.tapError((error) => Effect.logWarning("job work waits for the store", error.message)),
      Effect.retry(Timing.waitOut(timing)),
      Effect.orDie
    )
    return Activity.make({
      name,
      success: Steps.Next,
      execute: Effect.gen(function*() {
        let next = yield* step
        for (let n = 1; n < steps && next === "continue"; n++) next = yield* step
        return next
      })
    })
  })

/**
 * A run's body: `count` activities at most, the n-th named `name(n)`, one after another until one stops
 * the run; after one that waits for a proposal's expiry, a durable timer `expiry-<n>` until then (a
 * decision taken meanwhile began a new run, and this one then stops).
 */
const body = (count: number, name: (n: number) => string, steps: number) => (ref: RunRef) =>
  Effect.gen(function*() {
    for (let n = 1; n <= count; n++) {
      const next = yield* activity(name(n), ref, steps)
      if (next === "stop") return
      if (next !== "continue") {
        const millis = Date.parse(next.waitUntil) - (yield* Clock.currentTimeMillis)
        yield* DurableClock.sleep({ name: `expiry-${n}`, duration: Duration.millis(Math.max(1, millis + 10)) })
      }
    }
    yield* Effect.logError("a job run took too many steps", { jobId: ref.jobId, revision: ref.revision })
  })

/** Version 1: activities `step-1`, `step-2`, ..., one step each. */
export const shapeV1: RunShape = { version: 1, body: body(maxSteps, (n) => `step-${n}`, 1) }

/**
 * Version 2: activities `steps-1`, `steps-2`, ..., each up to `stepsPerStretch` steps: the engine's
 * record of each step in between added nothing but its cost (a message, its reply and a transaction).
 */
export const shapeV2: RunShape = {
  version: 2,
  body: body(maxSteps / stepsPerStretch, (n) => `steps-${n}`, stepsPerStretch)
}

export const shapes: RunShapes = { current: shapeV2, retired: [shapeV1] }

/** Registers the run's body: each run in the shape it began with. */
const workflow = ({ current, retired }: RunShapes) =>
  JobRun.toLayer((payload) => {
    const version = payload.version ?? 1
    const shape = [current, ...retired].find((candidate) => candidate.version === version)
    return shape !== undefined
      ? shape.body(payload)
      : Effect.die(new Error(`a run began on version ${version} of its shape, which this code no longer runs`))
  })

/**
 * Starts runs as changes commit (`RunQueue`), and sweeps the store (at start, then every
 * `Timing.sweepInterval`) for the runs Jobs still need (a signal lost with its process is found
 * then) and for proposals past their expiry. Starting is idempotent: the run's id is its Job, revision
 * and run.
 */
const starts = (current: RunShape) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const { sweepInterval } = yield* Timing.Timing
    const store = yield* JobStore
    const proposals = yield* Proposals
    const work = yield* RunQueue

    const start = (ref: RunRef) =>
      JobRun.execute({
        accountId: ref.accountId,
        jobId: ref.jobId,
        revision: ref.revision,
        run: ref.run,
        version: current.version
      }, { discard: true }).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.interrupt
            : Effect.logWarning("job work not started; the sweep retries it", { jobId: ref.jobId }, cause)
        )
      )

    yield* work.take.pipe(Effect.flatMap(start), Effect.forever, Effect.forkScoped)

    const sweep = Effect.andThen(
      proposals.expireDue,
      store.pendingRuns.pipe(Effect.flatMap((refs) => Effect.forEach(refs, start, { discard: true })))
    ).pipe(Effect.catchCause((cause) => Effect.logWarning("job sweep failed", cause)))
    yield* sweep.pipe(
      Effect.repeat(Schedule.spaced(sweepInterval)),
      Effect.forkScoped
    )
  }))

/**
 * `runner` built in the background, and built again every 5 s while it cannot be (its engine opens its
 * storage in the store as it is built): the service starts, serves the waitlist and answers the Job
 * API's requests (503 while the store is down) whether or not its database is up yet. Changes
 * committed meanwhile wait in `RunQueue`, or are found by the runner's first sweep.
 */
export const inBackground = <E, R>(runner: Layer.Layer<never, E, R>) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const scope = yield* Effect.scope
    // A storage that cannot open is a defect of the engine's layers (they die rather than fail): every
    // cause is retried here, and the fiber ends only when the service stops and interrupts it.
    yield* Layer.launch(runner).pipe(
      Effect.sandbox,
      Effect.tapError((cause) => Effect.logWarning("the Job runner waits for its store", cause)),
      Effect.retry(Schedule.spaced(Duration.seconds(5))),
      Effect.forkIn(scope)
    )
  }))

/**
 * The runner on whichever `WorkflowEngine` is provided, with the waits of `Timing`: every shape
 * registered, new runs on the current one.
 */
export const layer = (options: { readonly shapes?: RunShapes | undefined } = {}) => {
  const given = options.shapes ?? shapes
  return Layer.merge(workflow(given), starts(given.current)).pipe(
    Layer.provide(Steps.layer)
  )
}

/**
 * `RUNNER_ADDRESS=host:port`: this process is one runner of a cluster, reached by the others at that
 * address (it listens there for their messages). Unset: the process is a runner on its own.
 */
export const RunnerAddressConfig = Config.option(Config.schema(
  Schema.String.check(Schema.makeFilter((text) => {
    const match = /^(.+):(\d{1,5})$/.exec(text)
    return (match !== null && Number(match[2]) >= 1 && Number(match[2]) <= 65535) || "expected host:port"
  })).pipe(Schema.decodeTo(
    Schema.instanceOf(RunnerAddress.RunnerAddress),
    SchemaTransformation.transform({
      decode: (text) =>
        RunnerAddress.make(text.slice(0, text.lastIndexOf(":")), Number(text.slice(text.lastIndexOf(":") + 1))),
      encode: (address) => `${address.host}:${address.port}`
    })
  )),
  "RUNNER_ADDRESS"
))

/**
 * Leases short enough that the Jobs of a runner that dies move to the others within 10 seconds: its
 * heartbeat lapses after `shardLockExpiration`, the survivors see it within `refreshAssignmentsInterval`
 * and take its shards (on PostgreSQL its advisory locks went with its connections), then deliver its
 * runs again from their last recorded step. The health check's pings may find it gone sooner.
 */
const failover = {
  shardLockExpiration: Duration.seconds(5),
  refreshAssignmentsInterval: Duration.seconds(1),
  runnerHealthCheckInterval: Duration.seconds(2)
} as const

/**
 * The engine on effect/cluster's SQL storage, in the store's own database, so that every run outlives
 * its process: a cluster runner when `RUNNER_ADDRESS` is set (several processes share the Jobs' shards
 * through the database, each holding its shards with advisory locks); otherwise a runner on its own.
 * On the embedded store, whose one session every connection shares, shards are held by leases in a
 * table instead of advisory locks.
 */
export const engine = Layer.unwrap(Effect.gen(function*() {
  const { url } = yield* DatabaseConfig
  const address = yield* RunnerAddressConfig
  const shardingConfig = { ...failover, shardLockDisableAdvisory: Option.isNone(url) }
  const sharding = Option.match(address, {
    onNone: () => SingleRunner.layer({ runnerStorage: "sql", shardingConfig }),
    onSome: (runnerAddress) =>
      NodeClusterSocket.layer({
        storage: "sql",
        shardingConfig: { ...shardingConfig, runnerAddress: Option.some(runnerAddress) }
      })
  })
  return ClusterWorkflowEngine.layer.pipe(Layer.provideMerge(sharding), Layer.provide(NodeCrypto.layerDigest))
}))

/** The engine in memory: the same runs, kept for the life of the process (for tests). */
export const engineTest = WorkflowEngine.layerMemory
