import { assert } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer, Redacted } from "effect"
import { PreviewHttpLive } from "../../src/http/JobsPreview.ts"
import { nodeServer } from "../../src/http/Server.ts"
import type { Scope } from "../../src/schema/ApiKey.ts"
import * as ApiKeys from "../../src/services/access/ApiKeys.ts"
import * as ApiKeysLive from "../../src/services/access/ApiKeysLive.ts"
import * as ApiKeysTest from "../../src/services/access/ApiKeysTest.ts"
import type * as Idempotency from "../../src/services/access/Idempotency.ts"
import * as IdempotencyLive from "../../src/services/access/IdempotencyLive.ts"
import * as IdempotencyTest from "../../src/services/access/IdempotencyTest.ts"
import * as EventFeed from "../../src/services/events/EventFeed.ts"
import * as EventSignal from "../../src/services/events/EventSignal.ts"
import * as Interpreter from "../../src/services/interpreter/Interpreter.ts"
import * as ApprovalLinks from "../../src/services/jobs/ApprovalLinks.ts"
import * as Approvals from "../../src/services/jobs/Approvals.ts"
import * as JobRunner from "../../src/services/jobs/JobRunner.ts"
import type * as Jobs from "../../src/services/jobs/Jobs.ts"
import * as JobsLive from "../../src/services/jobs/JobsLive.ts"
import * as JobsTest from "../../src/services/jobs/JobsTest.ts"
import type * as JobStore from "../../src/services/jobs/JobStore.ts"
import * as JobStoreLive from "../../src/services/jobs/JobStoreLive.ts"
import * as JobStoreTest from "../../src/services/jobs/JobStoreTest.ts"
import * as JobWork from "../../src/services/jobs/JobWork.ts"
import type * as Proposals from "../../src/services/jobs/Proposals.ts"
import * as ProposalsLive from "../../src/services/jobs/ProposalsLive.ts"
import * as ProposalsTest from "../../src/services/jobs/ProposalsTest.ts"
import * as Verifier from "../../src/services/jobs/Verifier.ts"
import * as WorkTiming from "../../src/services/jobs/WorkTiming.ts"
import type { Providers } from "../../src/services/providers/Provider.ts"
import type { SandboxLedger } from "../../src/services/providers/Sandbox.ts"
import * as SandboxLive from "../../src/services/providers/SandboxLive.ts"
import * as SandboxTest from "../../src/services/providers/SandboxTest.ts"
import * as Database from "../../src/services/store/Database.ts"
import * as Migrations from "../../src/services/store/Migrations.ts"
import * as WaitlistTest from "../../src/services/waitlist/WaitlistTest.ts"
import { send } from "./Http.ts"
import type { RawResponse } from "./Http.ts"
import * as TestDatabase from "./TestDatabase.ts"

export type JobServices =
  | Jobs.Jobs
  | Proposals.Proposals
  | Approvals.Approvals
  | ApprovalLinks.ApprovalLinks
  | SandboxLedger
  | Idempotency.Idempotency
  | ApiKeys.ApiKeys
  | JobWork.JobWork
  | EventFeed.EventFeed
  | EventSignal.EventSignal

/** The Job family's stores and parts besides `Jobs`, in memory (sharing one store) and on the store. */
export const partsTestWith = <E>(providers: Layer.Layer<Providers | SandboxLedger, E>) =>
  Layer.mergeAll(
    ProposalsTest.layerTest,
    Approvals.layerTest,
    ApprovalLinks.layerMemory,
    JobStoreTest.layerTest,
    Verifier.layer
  ).pipe(
    Layer.provideMerge(providers)
  )
export const partsTest = partsTestWith(SandboxTest.layerTest)
export const partsLive = Layer.mergeAll(
  ProposalsLive.layerLive,
  Approvals.layerLive,
  ApprovalLinks.layer,
  JobStoreLive.layerLive,
  Verifier.layer
)
  .pipe(
    Layer.provideMerge(SandboxLive.layerLive)
  )

/** The service's waits, but a sweep every second, so that a test finds a lost start soon. */
export const testTiming: WorkTiming.Timing = { ...WorkTiming.production, sweepInterval: Duration.seconds(1) }

/**
 * Waits short enough for suites that take many Jobs through slow calls, retries and undos: the same
 * order of events, in a fraction of the time (a slow call still outlasts a test's 20 ms polls many times).
 */
export const quickTiming: WorkTiming.Timing = {
  ...testTiming,
  providerBackoff: { first: Duration.millis(20), max: Duration.millis(200) },
  undoRetry: Duration.millis(20),
  slowCall: Duration.millis(600)
}

const runner = (timing: WorkTiming.Timing) =>
  JobRunner.layer().pipe(Layer.provide(Layer.succeed(WorkTiming.WorkTiming)(timing)))

/** The Job API's services in memory, with the runner on the in-memory engine over `interpreter`, configured by `config`. */
export const servicesTest = (
  interpreter: Layer.Layer<Interpreter.Interpreter> = Interpreter.layerTest(),
  config: Record<string, string> = {},
  parts: Layer.Layer<
    | Proposals.Proposals
    | Approvals.Approvals
    | ApprovalLinks.ApprovalLinks
    | JobStore.JobStore
    | Verifier.Verifier
    | Providers
    | SandboxLedger,
    unknown,
    JobWork.JobWork | EventSignal.EventSignal
  > = partsTest,
  timing: WorkTiming.Timing = testTiming
) =>
  Layer.merge(runner(timing), EventFeed.layer).pipe(
    Layer.provideMerge(Layer.mergeAll(JobsTest.layerTest, IdempotencyTest.layerTest, ApiKeysTest.layerTest, parts)),
    Layer.provideMerge(Layer.merge(JobWork.layer, EventSignal.layerTest)),
    Layer.provide(interpreter),
    Layer.provideMerge(JobRunner.engineTest),
    // Only when given: otherwise the suite's own configuration stands.
    (services) =>
      Object.keys(config).length === 0
        ? services
        : services.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(config))))
  )

/** The same services on PostgreSQL (or PGlite), over a store of their own, configured by `config`. */
export const servicesLive = (
  interpreter: Layer.Layer<Interpreter.Interpreter> = Interpreter.layerTest(),
  config: Record<string, string> = {},
  timing: WorkTiming.Timing = testTiming
) =>
  Layer.merge(runner(timing), EventFeed.layer).pipe(
    Layer.provideMerge(Layer.mergeAll(JobsLive.layerLive, IdempotencyLive.layerLive, ApiKeysLive.layerLive, partsLive)),
    Layer.provideMerge(Layer.merge(JobWork.layer, EventSignal.layer)),
    Layer.provide(interpreter),
    Layer.provideMerge(JobRunner.engine),
    Layer.provide(Migrations.layer),
    Layer.provideMerge(Database.layer),
    Layer.provide(TestDatabase.configLayer(config))
  )

/** The real HTTP stack with the Job API preview on an ephemeral port, over the given Job services. */
export const previewServerWith = <E, R>(services: Layer.Layer<JobServices, E, R>) =>
  PreviewHttpLive.pipe(
    Layer.provideMerge(services),
    Layer.provideMerge(nodeServer({ host: "127.0.0.1", port: 0 })),
    Layer.provide(WaitlistTest.layerTest)
  )

export const allScopes: ReadonlyArray<Scope> = ["jobs:read", "jobs:write", "approvals:write"]

/** A new account with a key of the given scopes; answers the key's text. */
export const newKey = (
  scopes: ReadonlyArray<Scope> = allScopes,
  account = `acct-${Math.random().toString(36).slice(2)}`
) =>
  Effect.flatMap(ApiKeys.ApiKeys, (keys) => keys.create({ account, scopes })).pipe(
    Effect.map((issued) => Redacted.value(issued.key))
  )

let keyCounter = 0
export const newIdempotencyKey = () => `key-${process.pid}-${Date.now()}-${++keyCounter}`

export interface Call {
  readonly method?: string
  readonly path: string
  readonly key?: string | undefined
  readonly idempotencyKey?: string | undefined
  readonly body?: unknown
  readonly rawBody?: string | Uint8Array
  readonly headers?: Record<string, string>
}

/** One request to the Job API, as a client program sends it. */
export const call = (url: string, options: Call): Effect.Effect<RawResponse> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
  if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body))
  if (options.body !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json"
  return send(url, {
    method: options.method ?? (body === undefined ? "GET" : "POST"),
    path: options.path,
    headers,
    ...(body === undefined ? {} : { body })
  })
}

/** The statuses in which a Job has work of its own under way (the runner moves it on by itself). */
export const working: ReadonlyArray<string> = ["interpreting", "planning", "executing", "verifying", "recovering"]

/**
 * Polls a Job until it waits for a person or has ended (the runner works in the background), and then
 * until its events page holds every event it has committed.
 */
export const settled = (url: string, key: string, id: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1000; i++) {
      const response = yield* call(url, { path: `/v1/jobs/${id}`, key })
      const job = JSON.parse(response.body)
      if (!working.includes(job.status)) {
        yield* published(url, key, id, job.jobRevision)
        return job
      }
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`job ${id} is still at work after 20 s`))
  })

/**
 * Polls the Job's events until the last one of its revision `revision` is on the page: on PostgreSQL an
 * event is published only once every older transaction of the cluster has ended (JobStoreLive.ts), and
 * another test file's transaction on the same server can be one of them. The revision's view names that
 * last event's position as soon as it has committed.
 */
const published = (url: string, key: string, id: string, revision: number) =>
  Effect.gen(function*() {
    const view = yield* call(url, { path: `/v1/jobs/${id}?revision=${revision}`, key })
    const last: number = JSON.parse(view.body).asOf.position
    for (let i = 0; i < 1000; i++) {
      const page = yield* call(url, { path: `/v1/jobs/${id}/events?limit=1000`, key })
      if ((JSON.parse(page.body).data.at(-1)?.position ?? 0) >= last) return
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`the events of ${id} up to ${last} are still unpublished after 20 s`))
  })

export const tableRequest = "Book a table for 4 at an Italian restaurant in Lisbon"
export const budget = { type: "budget", max: { amount: "200.00", currency: "EUR" } }

/** An error answer of the Job API: its status, `application/json`, and exactly `{error, message}`; answers the message. */
export const expectError = (response: RawResponse, status: number, code: string) => {
  assert.strictEqual(response.status, status, response.body)
  assert.strictEqual(response.headers["content-type"], "application/json")
  const body = JSON.parse(response.body)
  assert.deepStrictEqual(Object.keys(body), ["error", "message"])
  assert.strictEqual(body.error, code)
  assert.isAbove(body.message.length, 10)
  return body.message as string
}

/** POST /v1/jobs with a fresh idempotency key unless one is given. */
export const createJob = (
  url: string,
  key: string,
  body: unknown = { request: tableRequest, constraints: [budget] },
  idempotencyKey = newIdempotencyKey()
) => call(url, { path: "/v1/jobs", key, idempotencyKey, body })
