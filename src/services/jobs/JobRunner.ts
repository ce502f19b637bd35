import * as NodeCrypto from "@effect/platform-node/NodeCrypto"
import { Cause, Duration, Effect, Layer, Option, Schedule, Schema } from "effect"
import * as ClusterWorkflowEngine from "effect/cluster/ClusterWorkflowEngine"
import * as SingleRunner from "effect/cluster/SingleRunner"
import * as Activity from "effect/workflow/Activity"
import * as DurableDeferred from "effect/workflow/DurableDeferred"
import * as Workflow from "effect/workflow/Workflow"
import * as WorkflowEngine from "effect/workflow/WorkflowEngine"
import { NotFound } from "../../schema/ApiErrors.ts"
import { AccountId } from "../../schema/ApiKey.ts"
import { JobId } from "../../schema/Job.ts"
import { Interpreter } from "../interpreter/Interpreter.ts"
import { DatabaseConfig } from "../store/Database.ts"
import { Jobs } from "./Jobs.ts"
import type { JobChange, JobRef } from "./JobWork.ts"
import { JobWork } from "./JobWork.ts"

/**
 * The work of one revision of a Job, run by effect/workflow's engine: with effect/cluster's SQL
 * storage on PostgreSQL (`engineSql`), each step is recorded in the same database, so that after a
 * crash the engine delivers the run again and it goes on from its last recorded step, in whichever
 * process then holds the Job's shard.
 *
 * A revision is interpreted (an activity), and then, if the interpretation asks questions, waits for
 * its input (a durable deferred). The input never arrives in the old revision: answers, like new
 * constraints, commit a new revision, and the runner interrupts the old revision's run and starts the
 * new one's; cancelling interrupts the current one.
 */
export const JobRevision = Workflow.make("JobRevision", {
  payload: { accountId: AccountId, jobId: JobId, revision: Schema.Int },
  idempotencyKey: ({ jobId, revision }) => `${jobId}/${revision}`
})

/** What a revision waits on while its questions are open; it ends by interruption (see `JobRevision`). */
export const InputGiven = DurableDeferred.make("InputGiven")

const Outcome = Schema.Literals(["awaiting_input", "moved_on"])

/** A store that cannot answer is waited out: the step is retried until it can. */
const storeRetry = Schedule.min([Schedule.exponential(Duration.millis(200), 2), Schedule.spaced(Duration.seconds(30))])

/** Registers `JobRevision`'s body with the engine. */
export const layerWorkflow = JobRevision.toLayer(Effect.fnUntraced(function*(ref) {
  const jobs = yield* Jobs
  const interpreter = yield* Interpreter
  // At least once, like every activity: after a crash it may run again. Recording applies only while
  // the Job still interprets this revision, so a second run changes nothing and answers the same.
  const interpret = Activity.make({
    name: "interpret",
    success: Outcome,
    execute: jobs.interpretationInput(ref).pipe(
      Effect.flatMap(Option.match({
        onNone: () => Effect.void,
        onSome: (input) =>
          interpreter.interpret(input).pipe(Effect.flatMap((result) => jobs.recordInterpretation(ref, result)))
      })),
      Effect.andThen(jobs.get(ref.accountId, ref.jobId)),
      Effect.map((job) =>
        job.jobRevision === ref.revision && job.status === "awaiting_input" ? "awaiting_input" as const : "moved_on"
      ),
      Effect.catchIf((error) => error instanceof NotFound, () => Effect.succeed("moved_on" as const)),
      Effect.tapError((error) => Effect.logWarning("job interpretation waits for the store", error.message)),
      Effect.retry(storeRetry),
      Effect.orDie
    )
  })
  if ((yield* interpret) === "awaiting_input") yield* DurableDeferred.await(InputGiven)
}))

/**
 * Starts and stops `JobRevision` runs as changes commit (`JobWork`), and sweeps the store for Jobs
 * still `interpreting` (at start, then every `sweepInterval`): a change whose signal was lost with its
 * process is started then. Starting is idempotent (the run's id is the Job's id and revision), and so
 * is interrupting a run that has ended or never began.
 */
export const layerSignals = (options: { readonly sweepInterval?: Duration.Input | undefined } = {}) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const jobs = yield* Jobs
    const work = yield* JobWork

    const start = (ref: JobRef) =>
      JobRevision.execute({ accountId: ref.accountId, jobId: ref.jobId, revision: ref.revision }, { discard: true })
    const interrupt = (ref: JobRef) =>
      JobRevision.executionId({ accountId: ref.accountId, jobId: ref.jobId, revision: ref.revision }).pipe(
        Effect.flatMap((executionId) => JobRevision.interrupt(executionId))
      )

    const apply = (change: JobChange) =>
      (change.status === "cancelled"
        ? interrupt(change)
        : Effect.andThen(
          change.revision > 1 ? interrupt({ ...change, revision: change.revision - 1 }) : Effect.void,
          start(change)
        )).pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause)
              ? Effect.interrupt
              : Effect.logWarning("job work not started; the sweep retries it", { jobId: change.jobId }, cause)
          )
        )

    yield* work.take.pipe(Effect.flatMap(apply), Effect.forever, Effect.forkScoped)

    const sweep = jobs.awaitingInterpretation.pipe(
      Effect.flatMap((refs) => Effect.forEach(refs, start, { discard: true })),
      Effect.catchCause((cause) => Effect.logWarning("job sweep failed", cause))
    )
    yield* sweep.pipe(
      Effect.repeat(Schedule.spaced(options.sweepInterval ?? Duration.seconds(10))),
      Effect.forkScoped
    )
  }))

/**
 * `runner` built in the background, and built again every 5 s while it cannot be (its engine opens its
 * storage in the store as it is built): the service starts, serves the waitlist and answers the Job
 * API's requests (503 while the store is down) whether or not its database is up yet. Changes
 * committed meanwhile wait in `JobWork`, or are found by the runner's first sweep.
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

/** The runner on whichever `WorkflowEngine` is provided. */
export const layer = (options: { readonly sweepInterval?: Duration.Input | undefined } = {}) =>
  Layer.merge(layerWorkflow, layerSignals(options))

/**
 * The engine on effect/cluster's SQL storage, in the store's own database: one runner in this
 * process; several processes share the work through the database (shards are held with advisory locks).
 */
export const engineSql = ClusterWorkflowEngine.layer.pipe(
  Layer.provideMerge(SingleRunner.layer({ runnerStorage: "sql" })),
  Layer.provide(NodeCrypto.layerDigest)
)

/** The engine in memory: the same runs, kept for the life of the process. */
export const engineMemory = WorkflowEngine.layerMemory

/**
 * The engine for the configured store: SQL storage on PostgreSQL (`DATABASE_URL`); in memory on the
 * embedded store, where the sweep restarts, after a restart, the revisions still to interpret (see
 * README, "The Jobs preview on the embedded store").
 */
export const engine = Layer.unwrap(Effect.gen(function*() {
  const { url } = yield* DatabaseConfig
  return Option.isSome(url) ? engineSql : engineMemory
}))
