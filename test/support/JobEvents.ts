import { Effect, Schedule } from "effect"
import type { AccountId } from "../../src/schema/ApiKey.ts"
import type { JobId } from "../../src/schema/Job.ts"
import * as Jobs from "../../src/services/jobs/Jobs.ts"
import type { EventPageOptions } from "../../src/services/jobs/Jobs.ts"

/**
 * The page once nothing on it waits for publication. On PostgreSQL an event is published only once every
 * older transaction of the cluster has ended (src/services/jobs/SqlJobStore.ts), and another test file's
 * transaction on the same server can be one of them: a page read at once could hold only a prefix.
 */
export const publishedPage = (owner: AccountId, options: EventPageOptions) =>
  Effect.flatMap(Jobs.Jobs, (jobs) => jobs.eventPage(owner, options)).pipe(
    Effect.repeat({ until: (page) => !page.pending, schedule: Schedule.spaced("20 millis") }),
    Effect.timeoutOrElse({
      duration: "20 seconds",
      orElse: () => Effect.die(new Error(`events of ${owner} are still unpublished after 20 seconds`))
    })
  )

/** The Job's events once every one of them that has committed is published. */
export const publishedEvents = (owner: AccountId, id: JobId) =>
  Effect.andThen(
    publishedPage(owner, { jobId: id, after: 0, limit: 1000 }),
    Effect.flatMap(Jobs.Jobs, (jobs) => jobs.events(owner, id))
  )
