import * as Schema from "effect/Schema"

/** The names a Job is known by, apart from `Job.ts` so that proposals can name their Job. */
export const JobId = Schema.String.check(
  Schema.isPattern(/^job_[0-9a-f]{24}$/u, { expected: "a Job id: job_ and 24 lowercase hex digits" })
).pipe(Schema.brand("JobId")).annotate({ identifier: "JobId" })
export type JobId = typeof JobId.Type

export const JobRevision = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
  description: "The Job's revision: 1 at creation, one more with every change of constraints or answer."
})

/** An RFC 3339 UTC timestamp with milliseconds, as the service writes them. */
export const Instant = Schema.String.annotate({ format: "date-time" })
