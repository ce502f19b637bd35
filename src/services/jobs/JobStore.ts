import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Result from "effect/Result"
import type { AccountId } from "../../schema/ApiKey.ts"
import { PositiveDuration } from "../../schema/Duration.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import type { JobId } from "../../schema/JobRef.ts"
import * as Pruning from "../store/Pruning.ts"
import { UnknownJob } from "./rules/JobErrors.ts"
import type { Change, JobRecord, RunRef } from "./rules/JobRecord.ts"
import * as Revision from "./rules/Revision.ts"
import type { RunQueue } from "./runner/RunQueue.ts"

/**
 * The one way a Job changes, shared by `Jobs`, `Proposals`, `ApprovalLinks` and the runner: lock the Job, decide the
 * change from the Job as it is (a pure rule of `rules/`: Revision, Proposal, Approval, Execution), write it with its events,
 * the revision's snapshot and whatever else the change stores (a proposal's bytes, a decision, an
 * approval consumed), all in one transaction; then, once committed, wake event readers and tell the
 * runner which runs the Job needs (`RunQueue`).
 */
export class JobStore extends Context.Service<JobStore, {
  readonly insert: (change: Change) => Effect.Effect<void, Unavailable>
  readonly mutate: <E>(
    accountId: AccountId,
    id: JobId,
    decide: (record: JobRecord, now: string) => Result.Result<Change, E>
  ) => Effect.Effect<Change, E | UnknownJob | Unavailable>
  readonly find: (accountId: AccountId, id: JobId) => Effect.Effect<JobRecord, UnknownJob | Unavailable>
  /** The runs that Jobs whose work is not finished need (`Revision.runsOf`), oldest Jobs first (at most 100). */
  readonly pendingRuns: Effect.Effect<ReadonlyArray<RunRef>, Unavailable>
  /** Deletes the events older than `EVENTS_RETENTION`; answers how many. */
  readonly pruneEvents: Effect.Effect<number, Unavailable>
}>()("JobStore") {}

/** `EVENTS_RETENTION` (30 days): how long events are kept, and so how old a cursor may be. */
export const EventsConfig = Config.all({
  retention: Config.schema(PositiveDuration, "EVENTS_RETENTION").pipe(Config.withDefault(Duration.days(30)))
})

/** Prunes events past `EVENTS_RETENTION` every `interval` (10 minutes unless told), in the background. */
export const pruneEventsLoop = (interval?: Duration.Input) =>
  Pruning.every("events past retention", Effect.flatMap(JobStore, (store) => store.pruneEvents), interval)

export const notFound = (id: string) => new UnknownJob({ message: `There is no Job ${JSON.stringify(id)}.` })

export const nowIso = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())

export const signalRuns = (work: RunQueue["Service"], record: JobRecord) =>
  Effect.forEach(Revision.runsOf(record), work.notify, { discard: true })
