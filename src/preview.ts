import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { PreviewHttpLive } from "./http/JobsPreview.ts"
import * as StreamProcess from "./http/StreamProcess.ts"
import * as Idempotency from "./services/access/Idempotency.ts"
import * as Interpreter from "./services/interpreter/Interpreter.ts"
import * as JobServices from "./services/jobs/JobServices.ts"
import * as JobStore from "./services/jobs/JobStore.ts"
import * as Providers from "./services/providers/Configured.ts"

/**
 * The Job API preview as the service runs it (`JOBS_API=preview`): its routes over the Job services on
 * the SQL store, and their background work on the durable engine. `main.ts` loads this module only
 * when the preview is on.
 */

// The background work is built in the background: the service starts while its database is down. The
// engine's modules are loaded only then (effect/cluster: 11 MB).
const RunnerLive = Layer.unwrap(
  Effect.promise(() => import("./services/jobs/runner/JobRunner.ts")).pipe(
    Effect.map((JobRunner) =>
      JobRunner.inBackground(
        JobRunner.layer().pipe(Layer.provide(JobRunner.engine), Layer.provide(Interpreter.layer))
      )
    )
  )
)

export const JobServicesLive = Layer.mergeAll(RunnerLive, Idempotency.pruneLoop(), JobStore.pruneEventsLoop()).pipe(
  Layer.provideMerge(JobServices.layer),
  Layer.provideMerge(Providers.layer)
)

export const PreviewLive = PreviewHttpLive.pipe(
  Layer.provide(StreamProcess.layer),
  Layer.provide(JobServicesLive)
)
