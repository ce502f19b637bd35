/**
 * The Job API when its stores fail: 503 `unavailable` with Retry-After, never 500, nothing stored, and
 * a retry with the same Idempotency-Key runs the operation.
 */
import { assert, layer } from "@effect/vitest"
import { Cause, Effect, Layer, Redacted } from "effect"
import { Unavailable } from "../src/schema/Errors.ts"
import * as ApiKeys from "../src/services/access/ApiKeys.ts"
import * as Interpreter from "../src/services/interpreter/Interpreter.ts"
import * as Jobs from "../src/services/jobs/Jobs.ts"
import * as JobServices from "../src/services/jobs/JobServices.ts"
import * as JobRunner from "../src/services/jobs/runner/JobRunner.ts"
import * as MemorySandbox from "../src/services/providers/MemorySandbox.ts"
import { baseUrl } from "./support/Http.ts"
import { call, createJob, expectError, newIdempotencyKey, newKey, previewServerWith } from "./support/JobsHttp.ts"
import * as Logs from "./support/Logs.ts"

/** The in-memory Jobs, except that a create fails as a failing database does, once, then dies once, then works. */
const flakyJobs = Layer.effect(Jobs.Jobs)(Effect.gen(function*() {
  const jobs = yield* Jobs.Jobs
  let calls = 0
  return {
    ...jobs,
    create: (accountId, input) => {
      calls++
      if (calls === 1) return Effect.fail(new Unavailable({ retryAfter: 5 }))
      if (calls === 2) return Effect.die(new Error("a bug"))
      return jobs.create(accountId, input)
    }
  }
}))

/** Keys whose check fails as a failing store does, or dies as a bug does. */
const failingKey = `rc_live_${"U".repeat(43)}`
const dyingKey = `rc_live_${"D".repeat(43)}`
const flakyKeys = Layer.effect(ApiKeys.ApiKeys)(Effect.gen(function*() {
  const keys = yield* ApiKeys.ApiKeys
  return {
    ...keys,
    authenticate: (key) =>
      Redacted.value(key) === failingKey
        ? Effect.fail(new Unavailable({ retryAfter: 5 }))
        : Redacted.value(key) === dyingKey
        ? Effect.die(new Error("a bug"))
        : keys.authenticate(key)
  }
}))

/** The in-memory services, with the Jobs and the keys above over theirs. */
const flakyServices = JobRunner.layer().pipe(
  Layer.provideMerge(Layer.merge(flakyJobs, flakyKeys)),
  Layer.provideMerge(JobServices.layerMemory),
  Layer.provideMerge(MemorySandbox.layerMemory),
  Layer.provide(Interpreter.layerScripted()),
  Layer.provide(JobRunner.engineTest)
)

/** What the service logs: a defect is logged with the endpoint it broke. */
const logs = Logs.collect()

layer(previewServerWith(flakyServices).pipe(Layer.provide(logs.layer)), { excludeTestServices: true })(
  "the Job API when its store fails",
  (it) => {
    it.effect("answers 503 unavailable with Retry-After, stores nothing, and a retry runs the operation", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        const idempotencyKey = newIdempotencyKey()
        const failed = yield* createJob(url, key, undefined, idempotencyKey)
        expectError(failed, 503, "unavailable")
        assert.strictEqual(failed.headers["retry-after"], "5")
        const logged = logs.entries.length
        const died = yield* createJob(url, key, undefined, idempotencyKey)
        expectError(died, 503, "unavailable")
        const [defect] = logs.entries.slice(logged).filter((entry) => entry.level === "Error")
        assert.strictEqual(defect?.message, "createJob failed")
        assert.include(String(Cause.squash(defect.cause)), "a bug")
        const created = yield* createJob(url, key, undefined, idempotencyKey)
        assert.strictEqual(created.status, 201)
        assert.strictEqual(created.headers["idempotent-replayed"], undefined)
      }))

    it.effect("answers 503 unavailable, never 500, when keys cannot be checked", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        for (const key of [failingKey, dyingKey]) {
          const answer = yield* call(url, { path: "/v1/jobs", key })
          expectError(answer, 503, "unavailable")
          assert.strictEqual(answer.headers["retry-after"], "5")
        }
      }))
  }
)
