import { Effect, Schedule } from "effect"
import type { AccountId } from "../../src/schema/ApiKey.ts"
import type { JobId } from "../../src/schema/Job.ts"
import * as Jobs from "../../src/services/jobs/Jobs.ts"

/**
 * The Job's events once every one of them that has committed is published. On PostgreSQL an event waits
 * for every older transaction of the cluster to end (src/services/jobs/JobStoreLive.ts), and another test
 * file's transaction on the same server can be one of them: reading at once could see only a prefix.
 */
export const publishedEvents = (owner: AccountId, id: JobId) =>
  Effect.gen(function*() {
    const jobs = yield* Jobs.Jobs
    yield* jobs.eventPage(owner, { jobId: id, after: 0, limit: 1000 }).pipe(
      Effect.repeat({ until: (page) => !page.pending, schedule: Schedule.spaced("20 millis") }),
      Effect.timeoutOrElse({
        duration: "20 seconds",
        orElse: () => Effect.die(new Error(`the events of ${id} are still unpublished after 20 seconds`))
      })
    )
    return yield* jobs.events(owner, id)
  })
