import * as Schema from "effect/Schema"
import { Instant, Job, JobId, JobRevision } from "./Job.ts"

/** What can happen to a Job (docs/API.md, "Events and views"); this preview appends these. */
export const eventTypes = [
  "job.created",
  "job.revised",
  "work.invalidated",
  "job.interpreted",
  "job.input_requested",
  "proposal.presented",
  "proposal.superseded",
  "approval.recorded",
  "execution.started",
  "execution.succeeded",
  "execution.failed",
  "verification.succeeded",
  "verification.failed",
  "recovery.step",
  "job.completed",
  "job.failed",
  "job.cancelled",
  "approval_link.created"
] as const
export const EventType = Schema.Literals(eventTypes).annotate({ identifier: "EventType" })
export type EventType = typeof EventType.Type

/**
 * Where an event stands in its account's history: positions grow with commit order and need not be
 * dense. Readers resume after the last one they received.
 */
export const Position = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
  description: "The event's place in its account's history; grows with commit order, not dense."
})

/** A cursor: resume after this position; 0 is the start of what is kept. */
export const After = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** docs/API.md, "Events and views": `{position, jobId, jobRevision, type, data, occurredAt}`. */
export const JobEvent = Schema.Struct({
  position: Position,
  jobId: JobId,
  jobRevision: JobRevision,
  type: EventType,
  data: Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "What happened; depends on type." }),
  occurredAt: Instant
}).annotate({ identifier: "JobEvent" })
export type JobEvent = typeof JobEvent.Type

export const EventPage = Schema.Struct({
  data: Schema.Array(JobEvent),
  nextAfter: After.annotate({
    description: "Pass as `after` for the next page: the last position in this page, or the request's own "
      + "`after` when the page is empty."
  })
}).annotate({ identifier: "EventPage" })
export type EventPage = typeof EventPage.Type

/** Which point of a Job's history a view shows: the revision, and the position of its last event. */
export const AsOf = Schema.Struct({ jobRevision: JobRevision, position: Position }).annotate({ identifier: "AsOf" })
export type AsOf = typeof AsOf.Type

/** A point-in-time view: the Job as it was after the event at `asOf.position`. */
export const JobAsOf = Schema.Struct({ ...Job.fields, asOf: AsOf }).annotate({ identifier: "JobAsOf" })
export type JobAsOf = typeof JobAsOf.Type

/** Where a point-in-time view is taken: at the end of a revision, or after a position. */
export type ViewPoint =
  | { readonly _tag: "Revision"; readonly revision: number }
  | { readonly _tag: "Position"; readonly position: number }
