import { Context, Effect, Layer, Queue } from "effect"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { JobId, JobStatus } from "../../schema/Job.ts"

/** A Job at one revision: what a unit of background work is about. */
export interface JobRef {
  readonly accountId: AccountId
  readonly jobId: JobId
  readonly revision: number
}

/** A committed change that moves a Job's work: a revision to interpret, or a cancellation. */
export interface JobChange extends JobRef {
  readonly status: JobStatus
}

/**
 * Where the Job stores say, once a change has committed, that a Job's work has moved: it is
 * `interpreting` a revision, or it was `cancelled`. The runner takes it from here. A signal, not the
 * record of the work: the Job's status in the store is that, so a signal lost with its process is found
 * again by the runner's sweep.
 */
export class JobWork extends Context.Service<JobWork, {
  readonly notify: (change: JobChange) => Effect.Effect<void>
  readonly take: Effect.Effect<JobChange>
}>()("JobWork") {}

/** Whether a Job in `status` has work for the runner to start or stop. */
export const movesWork = (status: JobStatus): boolean => status === "interpreting" || status === "cancelled"

export const layer = Layer.effect(JobWork)(Effect.gen(function*() {
  const queue = yield* Queue.unbounded<JobChange>()
  return {
    notify: (change) => Queue.offer(queue, change).pipe(Effect.asVoid),
    take: Queue.take(queue)
  }
}))
