import { Context, Effect, Layer, Queue } from "effect"
import type { AccountId } from "../schema/ApiKey.ts"
import type { JobId } from "../schema/Job.ts"

/** A Job at one revision: what a unit of background work is about. */
export interface JobRef {
  readonly accountId: AccountId
  readonly jobId: JobId
  readonly revision: number
}

/**
 * Where the Job stores say, once a change has committed, that a Job has work to do (it is
 * `interpreting`); the runner takes it from here. A signal, not the record of the work: the Job's
 * status in the store is that, so a signal lost with its process is found again by the runner's sweep.
 */
export class JobWork extends Context.Service<JobWork, {
  readonly notify: (ref: JobRef) => Effect.Effect<void>
  readonly take: Effect.Effect<JobRef>
}>()("JobWork") {}

export const layer = Layer.effect(JobWork)(Effect.gen(function*() {
  const queue = yield* Queue.unbounded<JobRef>()
  return {
    notify: (ref) => Queue.offer(queue, ref).pipe(Effect.asVoid),
    take: Queue.take(queue)
  }
}))
