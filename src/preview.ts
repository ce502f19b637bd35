import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { PreviewHttpLive } from "./http/JobsPreview.ts"
import * as StreamProcess from "./http/StreamProcess.ts"
import * as Idempotency from "./services/access/Idempotency.ts"
import * as SqlApiKeys from "./services/access/SqlApiKeys.ts"
import * as SqlIdempotency from "./services/access/SqlIdempotency.ts"
import * as EventFeed from "./services/events/EventFeed.ts"
import * as Interpreter from "./services/interpreter/Interpreter.ts"
import * as ApprovalLinks from "./services/jobs/ApprovalLinks.ts"
import * as Approvals from "./services/jobs/Approvals.ts"
import * as EventSignal from "./services/jobs/EventSignal.ts"
import * as Jobs from "./services/jobs/Jobs.ts"
import * as RunQueue from "./services/jobs/runner/RunQueue.ts"
import * as Verifier from "./services/jobs/runner/Verifier.ts"
import * as SqlJobs from "./services/jobs/SqlJobs.ts"
import * as SqlJobStore from "./services/jobs/SqlJobStore.ts"
import * as SqlProposals from "./services/jobs/SqlProposals.ts"
import * as Providers from "./services/providers/Configured.ts"

/**
 * The Job API preview as the service runs it (`JOBS_API=preview`): its routes over the Live Job
 * services, and their background work on the durable engine. `main.ts` loads this module only when
 * the preview is on.
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

export const JobServicesLive = Layer.mergeAll(
  RunnerLive,
  Idempotency.pruneLoop(),
  Jobs.pruneEventsLoop(),
  EventFeed.layer
)
  .pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        SqlJobs.layer,
        SqlProposals.layer,
        Approvals.layerLive,
        ApprovalLinks.layer,
        SqlJobStore.layer,
        Verifier.layer,
        SqlIdempotency.layer,
        SqlApiKeys.layer
      )
    ),
    Layer.provideMerge(Providers.layer),
    Layer.provideMerge(Layer.merge(RunQueue.layer, EventSignal.layer))
  )

export const PreviewLive = PreviewHttpLive.pipe(
  Layer.provide(StreamProcess.layer),
  Layer.provide(JobServicesLive)
)
