import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import type { RunRef } from "./JobRecord.ts"

/**
 * Where the Job stores say, once a change has committed, which runs a Job needs (`JobLifecycle.runsOf`):
 * the runner starts them (starting a run that exists already changes nothing). A signal, not the record
 * of the work: the Job in the store is that, so a signal lost with its process is found again by the
 * runner's sweep.
 */
export class JobWork extends Context.Service<JobWork, {
  readonly notify: (run: RunRef) => Effect.Effect<void>
  readonly take: Effect.Effect<RunRef>
}>()("JobWork") {}

export const layer = Layer.effect(JobWork)(Effect.gen(function*() {
  const queue = yield* Queue.unbounded<RunRef>()
  return {
    notify: (run) => Queue.offer(queue, run).pipe(Effect.asVoid),
    take: Queue.take(queue)
  }
}))
