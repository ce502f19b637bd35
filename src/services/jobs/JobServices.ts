import * as Layer from "effect/Layer"
import * as MemoryApiKeys from "../access/MemoryApiKeys.ts"
import * as MemoryIdempotency from "../access/MemoryIdempotency.ts"
import * as SqlApiKeys from "../access/SqlApiKeys.ts"
import * as SqlIdempotency from "../access/SqlIdempotency.ts"
import * as EventFeed from "./EventFeed.ts"
import * as EventSignal from "./EventSignal.ts"
import * as MemoryApprovalLinks from "./MemoryApprovalLinks.ts"
import * as MemoryJobs from "./MemoryJobs.ts"
import * as MemoryJobStore from "./MemoryJobStore.ts"
import * as MemoryProposals from "./MemoryProposals.ts"
import * as RunQueue from "./runner/RunQueue.ts"
import * as SqlApprovalLinks from "./SqlApprovalLinks.ts"
import * as SqlJobs from "./SqlJobs.ts"
import * as SqlJobStore from "./SqlJobStore.ts"
import * as SqlProposals from "./SqlProposals.ts"

/**
 * The Job services, composed once: the public ones (`Jobs`, `Proposals`, `ApprovalLinks`, the event
 * feed), the store they all change Jobs through (`JobStore`), the signals it gives once a change has
 * committed (`EventSignal`, `RunQueue`), and the API's keys and idempotency. Nothing here calls a
 * provider: the runner does (`JobRunner.layer`, added on top by whoever runs it, with the
 * `Providers` and the `Interpreter` it is given).
 */

/**
 * The event feed and the Jobs it reads, on the SQL store: all that the stream process, which only
 * serves event streams, builds.
 */
export const feedLayer = EventFeed.layer.pipe(
  Layer.provideMerge(SqlJobs.layer),
  Layer.provideMerge(SqlJobStore.layer),
  Layer.provideMerge(Layer.merge(RunQueue.layer, EventSignal.layer))
)

/** On the SQL store (PostgreSQL, or the embedded PGlite): what the service and the store's tests run. */
export const layer = Layer.mergeAll(SqlProposals.layer, SqlApprovalLinks.layer, SqlIdempotency.layer, SqlApiKeys.layer)
  .pipe(Layer.provideMerge(feedLayer))

/** In memory, with the same semantics: every service over one in-memory store. */
export const layerMemory = EventFeed.layer.pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      MemoryJobs.layerMemory,
      MemoryProposals.layerMemory,
      MemoryApprovalLinks.layerMemory,
      MemoryIdempotency.layerMemory,
      MemoryApiKeys.layerMemory
    )
  ),
  Layer.provideMerge(MemoryJobStore.layerMemory),
  Layer.provideMerge(Layer.merge(RunQueue.layer, EventSignal.layerInProcess))
)

/** What both compositions provide. */
export type Services = Extract<Layer.Success<typeof layer>, Layer.Success<typeof layerMemory>>
