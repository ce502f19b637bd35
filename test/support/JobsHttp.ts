import { assert } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Layer, Redacted } from "effect"
import { PreviewHttpLive } from "../../src/http/JobsPreview.ts"
import { nodeServer } from "../../src/http/Server.ts"
import type { Scope } from "../../src/schema/ApiKey.ts"
import * as ApiKeys from "../../src/services/access/ApiKeys.ts"
import * as Interpreter from "../../src/services/interpreter/Interpreter.ts"
import * as JobServices from "../../src/services/jobs/JobServices.ts"
import * as JobRunner from "../../src/services/jobs/runner/JobRunner.ts"
import * as Timing from "../../src/services/jobs/runner/Timing.ts"
import * as MemorySandbox from "../../src/services/providers/MemorySandbox.ts"
import type { Providers } from "../../src/services/providers/Provider.ts"
import type { SandboxLedger } from "../../src/services/providers/Sandbox.ts"
import { SlowCall } from "../../src/services/providers/Sandbox.ts"
import * as SqlSandbox from "../../src/services/providers/SqlSandbox.ts"
import * as Database from "../../src/services/store/Database.ts"
import * as Migrations from "../../src/services/store/Migrations.ts"
import * as MemoryWaitlist from "../../src/services/waitlist/MemoryWaitlist.ts"
import { send } from "./Http.ts"
import type { RawResponse } from "./Http.ts"
import * as TestDatabase from "./TestDatabase.ts"
import * as TestTime from "./TestTime.ts"

/**
 * What the Job API's HTTP layer and its tests reach: the Job services both compositions give (not the
 * in-memory store's own state) and the provider. `servicesTest` and `servicesLive` give `TestTime` besides
 * (the time they all read, moved on by a test of an expiry instead of waited for): a test that moves it
 * takes `PreviewServices | TestTime.TestTime`.
 */
export type PreviewServices = JobServices.Services | Providers | SandboxLedger

/** The runner's waits (`Timing`) and the sandbox's `sandbox:slow` calls (`SlowCall`), as a test sets them. */
export type TestTiming = Timing.Timing & { readonly slowCall: Duration.Duration }

/** The service's waits, but a sweep every second, so that a test finds a lost start soon. */
export const testTiming: TestTiming = {
  ...Timing.production,
  sweepInterval: Duration.seconds(1),
  slowCall: Duration.seconds(2)
}

/**
 * Waits short enough for suites that take many Jobs through slow calls, retries and undos: the same
 * order of events, in a fraction of the time (a slow call still outlasts a test's 20 ms polls many times).
 */
export const quickTiming: TestTiming = {
  ...testTiming,
  providerBackoff: { first: Duration.millis(20), max: Duration.millis(200) },
  undoRetry: Duration.millis(20),
  slowCall: Duration.millis(600)
}

const runner = (timing: TestTiming) =>
  JobRunner.layer().pipe(
    Layer.provide(Layer.merge(Layer.succeed(Timing.Timing)(timing), Layer.succeed(SlowCall)(timing.slowCall)))
  )

/** Only when given: otherwise the suite's own configuration stands. */
const configured = (config: Record<string, string>) => <A, E, R>(services: Layer.Layer<A, E, R>) =>
  Object.keys(config).length === 0
    ? services
    : services.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(config))))

/**
 * The Job API's services in memory (`JobServices.layerMemory`), with the runner on the in-memory engine
 * over `interpreter` and `providers` (the sandbox unless given), configured by `config`, on `TestTime`.
 */
export const servicesTest = (
  interpreter: Layer.Layer<Interpreter.Interpreter> = Interpreter.layerScripted(),
  config: Record<string, string> = {},
  providers: Layer.Layer<Providers | SandboxLedger, unknown> = MemorySandbox.layerMemory,
  timing: TestTiming = testTiming
) =>
  runner(timing).pipe(
    Layer.provideMerge(JobServices.layerMemory),
    Layer.provideMerge(providers),
    Layer.provide(interpreter),
    Layer.provideMerge(JobRunner.engineTest),
    configured(config),
    Layer.provideMerge(TestTime.layer)
  )

/**
 * The same services on PostgreSQL (or PGlite, `JobServices.layer`), over a store of their own, configured
 * by `config`, on `TestTime`.
 */
export const servicesLive = (
  interpreter: Layer.Layer<Interpreter.Interpreter> = Interpreter.layerScripted(),
  config: Record<string, string> = {},
  timing: TestTiming = testTiming
) =>
  runner(timing).pipe(
    Layer.provideMerge(JobServices.layer),
    Layer.provideMerge(SqlSandbox.layer),
    Layer.provide(interpreter),
    Layer.provideMerge(JobRunner.engine),
    Layer.provide(Migrations.layer),
    Layer.provideMerge(Database.layer),
    Layer.provide(TestDatabase.configLayer(config)),
    Layer.provideMerge(TestTime.layer)
  )

/**
 * The real HTTP stack with the Job API preview on an ephemeral port, over the given Job services (and
 * whatever else their layer gives, such as `TestTime`).
 */
export const previewServerWith = <E, R, A = never>(services: Layer.Layer<PreviewServices | A, E, R>) =>
  PreviewHttpLive.pipe(
    Layer.provideMerge(services),
    Layer.provideMerge(nodeServer({ host: "127.0.0.1", port: 0 })),
    Layer.provide(MemoryWaitlist.layerMemory)
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
 * event is published only once every older transaction of the cluster has ended (SqlJobStore.ts), and
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
