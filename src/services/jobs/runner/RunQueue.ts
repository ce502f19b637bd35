import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import type { RunRef } from "../rules/JobRecord.ts"

/**
 * Where the Job stores say, once a change has committed, which runs a Job needs (`Revision.runsOf`):
 * the runner starts them (starting a run that exists already changes nothing). A signal, not the record
 * of the work: the Job in the store is that, so a signal lost with its process is found again by the
 * runner's sweep.
 */
export class RunQueue extends Context.Service<RunQueue, {
  readonly notify: (run: RunRef) => Effect.Effect<void>
  readonly take: Effect.Effect<RunRef>
}>()("RunQueue") {}

export const layer = Layer.effect(RunQueue)(Effect.gen(function*() {
  const queue = yield* Queue.unbounded<RunRef>()
  return {
    notify: (run) => Queue.offer(queue, run).pipe(Effect.asVoid),
    take: Queue.take(queue)
  }
}))
