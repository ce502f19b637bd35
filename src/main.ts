import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Effect, Exit, Layer, Logger, Runtime } from "effect"
import * as JobsPreview from "./http/JobsPreview.ts"
import { NodeServerLive } from "./http/Server.ts"
import * as ApiKeysLive from "./services/access/ApiKeysLive.ts"
import * as Idempotency from "./services/access/Idempotency.ts"
import * as IdempotencyLive from "./services/access/IdempotencyLive.ts"
import * as EventFeed from "./services/events/EventFeed.ts"
import * as EventSignal from "./services/events/EventSignal.ts"
import * as Interpreter from "./services/interpreter/Interpreter.ts"
import * as Approvals from "./services/jobs/Approvals.ts"
import * as Jobs from "./services/jobs/Jobs.ts"
import * as JobsLive from "./services/jobs/JobsLive.ts"
import * as JobStoreLive from "./services/jobs/JobStoreLive.ts"
import * as JobWork from "./services/jobs/JobWork.ts"
import * as ProposalsLive from "./services/jobs/ProposalsLive.ts"
import * as Verifier from "./services/jobs/Verifier.ts"
import * as Providers from "./services/providers/Configured.ts"
import * as Database from "./services/store/Database.ts"
import * as Migrations from "./services/store/Migrations.ts"
import * as Waitlist from "./services/waitlist/Waitlist.ts"
import * as WaitlistLive from "./services/waitlist/WaitlistLive.ts"

const StoreLive = Migrations.layer.pipe(Layer.provideMerge(Database.layer))

const WaitlistServiceLive = Layer.merge(Waitlist.withPause(WaitlistLive.layerLive), Migrations.migrateOnStart)

// Built only with JOBS_API=preview: the Job API's stores, and its background work on the durable engine
// (built in the background: the service starts while its database is down). The engine's modules are
// loaded only then: the waitlist alone does not carry effect/cluster in its memory (11 MB).
const RunnerLive = Layer.unwrap(
  Effect.promise(() => import("./services/jobs/JobRunner.ts")).pipe(
    Effect.map((JobRunner) =>
      JobRunner.inBackground(
        JobRunner.layer().pipe(Layer.provide(JobRunner.engine), Layer.provide(Interpreter.layer))
      )
    )
  )
)
const JobServicesLive = Layer.mergeAll(RunnerLive, Idempotency.pruneLoop(), Jobs.pruneEventsLoop(), EventFeed.layer)
  .pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        JobsLive.layerLive,
        ProposalsLive.layerLive,
        Approvals.layerLive,
        JobStoreLive.layerLive,
        Verifier.layer,
        IdempotencyLive.layerLive,
        ApiKeysLive.layerLive
      )
    ),
    Layer.provideMerge(Providers.layer),
    Layer.provideMerge(Layer.merge(JobWork.layer, EventSignal.layer))
  )

// The store is built before the server listens: a request is never accepted before it can be served.
JobsPreview.layer(JobServicesLive).pipe(
  Layer.provide(NodeServerLive),
  Layer.provide(WaitlistServiceLive),
  Layer.provide(StoreLive),
  Layer.provide(Logger.layer([Logger.consoleJson])),
  Layer.launch,
  // SIGTERM and SIGINT stop the service gracefully (no new connections, requests in flight finish,
  // then the pool closes): that is a clean exit, not a failure.
  (main) =>
    NodeRuntime.runMain(main, {
      teardown: (exit, onExit) =>
        Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
    })
)
