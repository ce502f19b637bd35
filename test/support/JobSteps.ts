import { Effect, Layer, Option, Result } from "effect"
import * as Interpreter from "../../src/services/interpreter/Interpreter.ts"
import { JobStore } from "../../src/services/jobs/JobStore.ts"
import { UnknownJob } from "../../src/services/jobs/rules/JobErrors.ts"
import type { RunRef } from "../../src/services/jobs/rules/JobRecord.ts"
import * as Revision from "../../src/services/jobs/rules/Revision.ts"
import * as Steps from "../../src/services/jobs/runner/Steps.ts"

/**
 * The runner's work driven by hand, for tests of the stores that run no runner: each step is the
 * test's, through the store's one write path (`JobStore.mutate`) and the runner's own rules.
 */

/** What the interpreter would be given for `ref`, while the Job still interprets that revision. */
export const interpretationInput = (ref: RunRef) =>
  Effect.flatMap(JobStore, (store) => store.find(ref.accountId, ref.jobId)).pipe(
    Effect.map((record) =>
      record.status === "interpreting" && record.revision === ref.revision
        ? Option.some(Revision.interpretInput(record))
        : Option.none()
    ),
    Effect.catchIf((error) => error instanceof UnknownJob, () => Effect.succeed(Option.none()))
  )

/** Records `interpretation` as the reading of `ref`; false when the Job has moved on (nothing changes then). */
export const recordInterpretation = (ref: RunRef, interpretation: Interpreter.Interpretation) =>
  Effect.flatMap(JobStore, (store) =>
    store.mutate(
      ref.accountId,
      ref.jobId,
      (record, now) => Result.succeed(Revision.interpreted(record, ref.revision, interpretation, now))
    )).pipe(
      Effect.map((change) => change.events.length > 0),
      Effect.catchIf((error) => error instanceof UnknownJob, () => Effect.succeed(false))
    )

/**
 * The claim by which the run `ref` starts executing its approved proposal: the runner's own
 * (`Steps.claim`), an execution started, blocked by an older one being settled, or nothing to do.
 */
export const claim = Steps.claim

/**
 * The runner's steps (`Steps.advance`) without the runner, over the given interpreter (the scripted one
 * unless given), on the stores and the provider the test provides.
 */
export const stepsLayer = (interpreter: Layer.Layer<Interpreter.Interpreter> = Interpreter.layerScripted()) =>
  Steps.layer.pipe(Layer.provide(interpreter))

/** One step of the run `ref`, as the runner takes it. */
export const advance = (ref: RunRef) => Effect.flatMap(Steps.Steps, (steps) => steps.advance(ref))
