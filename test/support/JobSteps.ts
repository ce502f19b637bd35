import { ConfigProvider, Effect, Layer, Option, Result } from "effect"
import * as Interpreter from "../../src/services/interpreter/Interpreter.ts"
import * as JobServices from "../../src/services/jobs/JobServices.ts"
import { JobStore } from "../../src/services/jobs/JobStore.ts"
import { UnknownJob } from "../../src/services/jobs/rules/JobErrors.ts"
import type { RunRef } from "../../src/services/jobs/rules/JobRecord.ts"
import * as Revision from "../../src/services/jobs/rules/Revision.ts"
import * as Steps from "../../src/services/jobs/runner/Steps.ts"
import * as MemorySandbox from "../../src/services/providers/MemorySandbox.ts"
import * as SqlSandbox from "../../src/services/providers/SqlSandbox.ts"
import * as Database from "../../src/services/store/Database.ts"
import * as Migrations from "../../src/services/store/Migrations.ts"
import * as TestDatabase from "./TestDatabase.ts"
import * as TestTime from "./TestTime.ts"

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
 * The runner's steps (`Steps.advance`) without the runner, over the scripted interpreter, on the stores
 * and the provider the test provides.
 */
const stepsLayer = Steps.layer.pipe(Layer.provide(Interpreter.layerScripted()))

/**
 * The runner's steps on the Job API's in-memory stores and sandbox, under `config` alone (the service's
 * defaults for the rest), with `TestTime` as every service's clock.
 */
export const stores = (config: Record<string, string> = {}) =>
  stepsLayer.pipe(
    Layer.provideMerge(JobServices.layerMemory),
    Layer.provideMerge(MemorySandbox.layerMemory),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(config))),
    Layer.provideMerge(TestTime.layer)
  )

/**
 * The runner's steps on the Job API's SQL stores and sandbox, in a store of their own
 * (`TestDatabase.configLayer`) under `config` besides, with `TestTime` as every service's clock.
 */
export const storesLive = (config: Record<string, string> = {}) =>
  stepsLayer.pipe(
    Layer.provideMerge(JobServices.layer),
    Layer.provideMerge(SqlSandbox.layer),
    Layer.provide(Migrations.layer),
    Layer.provideMerge(Database.layer),
    Layer.provide(TestDatabase.configLayer(config)),
    Layer.provideMerge(TestTime.layer)
  )

/** One step of the run `ref`, as the runner takes it. */
export const advance = (ref: RunRef) => Effect.flatMap(Steps.Steps, (steps) => steps.advance(ref))
