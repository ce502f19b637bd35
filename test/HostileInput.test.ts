import { assert, describe, layer } from "@effect/vitest"
import type { Layer } from "effect"
import { Effect } from "effect"
import { noteMaxLength, placeMaxLength, quantityMax, unitMaxLength } from "../src/schema/Constraint.ts"
import { requestMaxLength } from "../src/schema/Job.ts"
import { baseUrl } from "./support/Http.ts"
import type { PreviewServices } from "./support/JobsHttp.ts"
import {
  call,
  createJob,
  expectError,
  newIdempotencyKey,
  newKey,
  previewServerWith,
  servicesLive,
  servicesTest,
  settled
} from "./support/JobsHttp.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

/**
 * What a property-based API tester (schemathesis and its kind) and a hostile person send: every answer
 * a 4xx that says what is wrong, never a 503 for the client's fault, and nothing stored from a refused
 * request. Every answer is also held to the OpenAPI document by `send` (test/support/OpenApiCheck.ts).
 */

const unknownId = `job_${"0".repeat(24)}`
const hash = `sha256:${"0".repeat(64)}`
const json = { "content-type": "application/json" }

const raw = (url: string, key: string | undefined, path: string, init: { method?: string; body?: string } = {}) =>
  call(url, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    path,
    key,
    ...(init.body === undefined ? {} : { rawBody: init.body, headers: json, idempotencyKey: newIdempotencyKey() })
  })

const suite = <E>(name: string, services: Layer.Layer<PreviewServices, E>) =>
  layer(previewServerWith(services), { excludeTestServices: true })(name, (it) => {
    it.effect("a number out of range or a lone surrogate is 422, and the key stays unclaimed", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        for (
          const body of [
            `{"request":"Buy tickets","constraints":[{"type":"quantity","count":1e400}]}`,
            `{"request":"Buy tickets \\ud800","constraints":[]}`,
            `{"request":"Buy tickets","constraints":[],"\\udc00":1}`
          ]
        ) {
          const idempotencyKey = newIdempotencyKey()
          const refused = yield* call(url, { path: "/v1/jobs", key, idempotencyKey, rawBody: body, headers: json })
          expectError(refused, 422, "invalid_request")
          // Nothing was stored under the key: the same key with a good request creates the Job.
          const created = yield* createJob(url, key, { request: "Buy tickets" }, idempotencyKey)
          assert.strictEqual(created.status, 201, created.body)
          assert.isUndefined(created.headers["idempotent-replayed"])
        }
      }))

    it.effect("an id or a hash that cannot name anything is 404 (a NUL byte too), after 401", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        const paths = [
          "/v1/jobs/job_%00",
          `/v1/jobs/${unknownId}%00`,
          `/v1/jobs/${unknownId}/proposals/sha256%00`,
          `/v1/jobs/${unknownId}/events`,
          `/v1/jobs/${"a".repeat(150)}`,
          `/v1/jobs/${"a".repeat(150)}/proposals/${"b".repeat(150)}`,
          "/v1/jobs/%E0%A4%A",
          `/v1/jobs/${unknownId}/proposals/%ZZ`,
          `/v1/jobs/${unknownId}/proposals/${hash}`
        ]
        for (const path of paths) {
          const anonymous = yield* raw(url, undefined, path)
          expectError(anonymous, 401, "unauthorized")
          expectError(yield* raw(url, key, path), 404, "not_found")
        }
        for (const path of ["/v1/jobs/job_%00/cancel", `/v1/jobs/${"a".repeat(150)}/constraints`]) {
          const body = path.endsWith("cancel") ? "{}" : `{"jobRevision":1,"constraints":[]}`
          expectError(yield* raw(url, key, path, { body }), 404, "not_found")
        }
        // The order of docs/API.md holds for ids no Job can have: a request that is not valid is 422 first.
        expectError(yield* raw(url, key, "/v1/jobs/job_%00/constraints", { body: "{}" }), 422, "invalid_request")
      }))

    it.effect("a method a Job path does not serve is 405 with Allow, as on the waitlist", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const cases = [
          ["DELETE", `/v1/jobs/${unknownId}`, "GET"],
          ["PUT", "/v1/jobs", "GET, POST"],
          ["PATCH", `/v1/jobs/${unknownId}/constraints`, "POST"],
          ["GET", `/v1/jobs/${unknownId}/cancel`, "POST"],
          ["DELETE", `/v1/jobs/${unknownId}/proposals/${hash}`, "GET"],
          ["POST", "/v1/events", "GET"]
        ] as const
        for (const [method, path, allow] of cases) {
          const answer = yield* call(url, { method, path })
          expectError(answer, 405, "method_not_allowed")
          assert.strictEqual(answer.headers.allow, allow)
        }
      }))

    it.effect("a query parameter the operation does not name is 422, not ignored", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        for (const path of ["/v1/jobs?limt=2", `/v1/jobs/${unknownId}?rev=1`, "/v1/events?from=3"]) {
          const message = expectError(yield* raw(url, key, path), 422, "invalid_request")
          assert.match(message, /is not allowed here/)
        }
        const posted = yield* call(url, {
          path: "/v1/jobs?dry_run=true",
          key,
          idempotencyKey: newIdempotencyKey(),
          body: { request: "Buy tickets" }
        })
        expectError(posted, 422, "invalid_request")
        const list = JSON.parse((yield* raw(url, key, "/v1/jobs")).body)
        assert.deepStrictEqual(list.data, [], "nothing stored from a refused request")
      }))

    it.effect("Last-Event-ID is held to its pattern: digits, no leading zero, at most 2^53 - 1", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        for (const value of ["", "007", "-1", "1e3", "9007199254740992", "12345678901234567890"]) {
          const answer = yield* call(url, { path: "/v1/events", key, headers: { "last-event-id": value } })
          expectError(answer, 422, "invalid_request")
        }
        for (const value of ["0", "9007199254740991"]) {
          const answer = yield* call(url, { path: "/v1/events", key, headers: { "last-event-id": value } })
          assert.strictEqual(answer.status, 200, answer.body)
        }
      }))

    it.effect("POST /v1/jobs without constraints creates the Job with none", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        const created = yield* createJob(url, key, { request: "Ship a parcel to Porto" })
        assert.strictEqual(created.status, 201, created.body)
        assert.deepStrictEqual(JSON.parse(created.body).constraints, [])
      }))

    it.effect("a quantity beyond a million is refused, so no price is ever too large to write", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        for (const count of [10 ** 13, quantityMax + 1]) {
          const refused = yield* createJob(url, key, {
            request: "Buy concert tickets",
            constraints: [{ type: "quantity", count }]
          })
          expectError(refused, 422, "invalid_request")
        }
      }))

    it.effect(
      "every stored value at its extremes reads back from every endpoint, never 503",
      () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const long = (n: number) => "é".repeat(n - 1) + "x"
          // Every minor unit ISO 4217 has (0 to 4 digits), at the largest amount each can write.
          const budgets = [
            ["JPY", "999999999999999"],
            ["EUR", "999999999999999.99"],
            ["BHD", "999999999999999.999"],
            ["CLF", "999999999999999.9999"]
          ] as const
          const ids: Array<string> = []
          for (const [currency, amount] of budgets) {
            const created = yield* createJob(url, key, {
              request: "Buy concert tickets",
              constraints: [
                { type: "budget", max: { amount, currency } },
                { type: "quantity", count: quantityMax, unit: "tickets" },
                { type: "location", place: long(placeMaxLength) },
                { type: "note", text: long(noteMaxLength) },
                { type: "timezone", zone: "America/Argentina/ComodRivadavia" },
                { type: "deadline", by: "9999-12-31T23:59:59.999999999+23:59" },
                { type: "window", start: "0000-01-01T00:00:00Z", end: "9999-12-31T23:59:59Z" }
              ]
            })
            assert.strictEqual(created.status, 201, created.body)
            ids.push(JSON.parse(created.body).id)
          }
          const longest = yield* createJob(url, key, {
            request: `Buy concert tickets. ${long(requestMaxLength - 21)}`,
            constraints: [{ type: "quantity", count: quantityMax, unit: long(unitMaxLength) }]
          })
          assert.strictEqual(longest.status, 201, longest.body)
          ids.push(JSON.parse(longest.body).id)
          for (const id of ids) {
            const job = yield* settled(url, key, id)
            if (job.status === "awaiting_approval") {
              const decided = yield* call(url, {
                path: `/v1/jobs/${id}/approvals`,
                key,
                idempotencyKey: newIdempotencyKey(),
                body: { proposalHash: job.proposal.proposalHash, jobRevision: job.jobRevision, decision: "approve" }
              })
              assert.strictEqual(decided.status, 201, decided.body)
              assert.strictEqual((yield* settled(url, key, id)).status, "completed")
            }
          }
          // Every read, each answer held to the document by `send`: never a 503.
          const reads = [
            "/v1/jobs?limit=100",
            "/v1/events?limit=1000",
            ...ids.flatMap((id) => [`/v1/jobs/${id}`, `/v1/jobs/${id}?revision=1`, `/v1/jobs/${id}/events?limit=1000`])
          ]
          for (const path of reads) {
            const answer = yield* raw(url, key, path)
            assert.strictEqual(answer.status, 200, `${path}: ${answer.body.slice(0, 300)}`)
          }
          let proposals = 0
          for (const id of ids) {
            const job = JSON.parse((yield* raw(url, key, `/v1/jobs/${id}`)).body)
            if (job.proposal === null) continue
            proposals++
            const bytes = yield* raw(url, key, `/v1/jobs/${id}/proposals/${job.proposal.proposalHash}`)
            assert.strictEqual(bytes.status, 200)
            const again = yield* call(url, {
              path: `/v1/jobs/${id}/proposals/${job.proposal.proposalHash}`,
              key,
              headers: { "if-none-match": bytes.headers.etag as string }
            })
            assert.strictEqual(again.status, 304)
          }
          assert.isAtLeast(proposals, budgets.length, "each budget's Job came to a proposal")
        }),
      { timeout: 240_000 }
    )
  })

describe("hostile input", () => {
  suite("in memory", servicesTest())
  suite(`on ${TestDatabase.kind}`, servicesLive())
})
