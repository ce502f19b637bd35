import { Cause, Duration, Effect, Layer, Option, Schedule, Semaphore } from "effect"
import { Interpreter } from "./Interpreter.ts"
import { Jobs } from "./Jobs.ts"
import type { JobRef } from "./JobWork.ts"
import { JobWork } from "./JobWork.ts"

/**
 * Moves Jobs on after a change: for now, interpretation only (a Job `interpreting` becomes
 * `awaiting_input` or `planning`). This is the seam where the durable engine goes: it runs the work in
 * this process, in fibers of its own, as soon as `JobWork` says a change has committed, and sweeps the
 * store for Jobs left `interpreting` (at start, and every `sweepInterval`), which finds the work of a
 * process that stopped. Its steps are safe to repeat: an interpretation is recorded only while the Job
 * is still interpreting the revision it read (`Jobs.recordInterpretation`), so two runners, or a
 * signal and a sweep, never apply one twice.
 */
export const layerInProcess = (options: {
  readonly sweepInterval?: Duration.Input | undefined
  readonly concurrency?: number | undefined
} = {}) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const jobs = yield* Jobs
    const interpreter = yield* Interpreter
    const work = yield* JobWork
    const permits = yield* Semaphore.make(options.concurrency ?? 4)
    const inFlight = new Set<string>()

    const interpret = (ref: JobRef) =>
      jobs.interpretationInput(ref).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.void,
          onSome: (input) =>
            interpreter.interpret(input).pipe(
              Effect.flatMap((interpretation) => jobs.recordInterpretation(ref, interpretation))
            )
        })),
        Effect.asVoid
      )

    // One run per Job revision at a time; a failure is logged and left to the next sweep.
    const run = (ref: JobRef) => {
      const id = `${ref.jobId} ${ref.revision}`
      if (inFlight.has(id)) return Effect.void
      inFlight.add(id)
      return interpret(ref).pipe(
        permits.withPermits(1),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.void
            : Effect.logWarning("job interpretation failed; the sweep retries it", { jobId: ref.jobId }, cause)
        ),
        Effect.ensuring(Effect.sync(() => inFlight.delete(id))),
        Effect.forkScoped,
        Effect.asVoid
      )
    }

    yield* work.take.pipe(Effect.flatMap(run), Effect.forever, Effect.forkScoped)

    const sweep = jobs.awaitingInterpretation.pipe(
      Effect.flatMap((refs) => Effect.forEach(refs, run, { discard: true })),
      Effect.catchCause((cause) => Effect.logWarning("job sweep failed", cause))
    )
    yield* sweep.pipe(
      Effect.repeat(Schedule.spaced(options.sweepInterval ?? Duration.seconds(10))),
      Effect.forkScoped
    )
  }))
