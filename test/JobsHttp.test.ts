import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { fingerprintOf } from "../src/http/JobsMiddlewareHttp.ts"
import * as ApiKeys from "../src/services/access/ApiKeys.ts"
import * as Idempotency from "../src/services/access/Idempotency.ts"
import { baseUrl, comparableHeaders } from "./support/Http.ts"
import type { RawResponse } from "./support/Http.ts"
import { publishedEvents } from "./support/JobEvents.ts"
import {
  budget,
  call,
  createJob,
  expectError,
  newIdempotencyKey,
  newKey,
  previewServerWith,
  servicesLive,
  servicesTest,
  settled,
  tableRequest
} from "./support/JobsHttp.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

const expectUnauthorized = (response: RawResponse) => {
  expectError(response, 401, "unauthorized")
  assert.strictEqual(response.headers["www-authenticate"], "Bearer")
}

/** `again` is `first` replayed: the same status, bytes and headers, and `Idempotent-Replayed: true` (`first` has none). */
const assertReplayed = (again: RawResponse, first: RawResponse) => {
  assert.strictEqual(first.headers["idempotent-replayed"], undefined)
  assert.strictEqual(again.status, first.status)
  assert.strictEqual(again.body, first.body)
  const { "idempotent-replayed": replayed, ...rest } = comparableHeaders(again.headers)
  assert.strictEqual(replayed, "true")
  assert.deepStrictEqual(rest, comparableHeaders(first.headers))
}

const accountOf = (key: string) =>
  Effect.flatMap(ApiKeys.ApiKeys, (keys) => keys.authenticate(Redacted.make(key))).pipe(
    Effect.map((principal) => Option.getOrThrow(principal).accountId)
  )

/** Every answer to 20 identical creates sent at once with one key: one Job, replays or 409 in use. */
const sameKeyAtOnce = () =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    const key = yield* newKey()
    const idempotencyKey = newIdempotencyKey()
    const body = { request: "Ship a parcel to Porto", constraints: [] }
    const answers = yield* Effect.forEach(
      Array.from({ length: 20 }),
      () => createJob(url, key, body, idempotencyKey),
      { concurrency: "unbounded" }
    )
    const created = answers.filter((answer) => answer.status === 201)
    const inUse = answers.filter((answer) => answer.status === 409)
    assert.strictEqual(created.length + inUse.length, 20, answers.map((a) => `${a.status} ${a.body}`).join("\n"))
    assert.isAtLeast(created.length, 1)
    assert.strictEqual(new Set(created.map((answer) => answer.body)).size, 1)
    assert.strictEqual(created.filter((answer) => answer.headers["idempotent-replayed"] === undefined).length, 1)
    for (const answer of inUse) {
      expectError(answer, 409, "idempotency_key_in_use")
      assert.strictEqual(answer.headers["retry-after"], "1")
    }
    const list = JSON.parse((yield* call(url, { path: "/v1/jobs?limit=100", key })).body)
    assert.strictEqual(list.data.length, 1)
    assert.strictEqual(list.data[0].id, JSON.parse(created[0]!.body).id)
  })

const differentKeysAtOnce = () =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    const key = yield* newKey()
    const answers = yield* Effect.forEach(
      Array.from({ length: 20 }, (_, i) => i),
      (i) => createJob(url, key, { request: `Ship parcel ${i} to Porto`, constraints: [] }),
      { concurrency: "unbounded" }
    )
    assert.deepStrictEqual(answers.map((answer) => answer.status), Array(20).fill(201))
    const list = JSON.parse((yield* call(url, { path: "/v1/jobs?limit=100", key })).body)
    assert.strictEqual(list.data.length, 20)
    assert.strictEqual(new Set(list.data.map((job: { id: string }) => job.id)).size, 20)
  })

layer(previewServerWith(servicesTest()), { excludeTestServices: true, timeout: "60 seconds" })(
  "the Job API over HTTP (in memory)",
  (it) => {
    describe("a Job's life", () => {
      it.effect("creates (201, Location), asks a question, takes the answer and plans", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const created = yield* createJob(url, key)
          assert.strictEqual(created.status, 201, created.body)
          assert.strictEqual(created.headers["content-type"], "application/json")
          const job = JSON.parse(created.body)
          assert.strictEqual(created.headers.location, `/v1/jobs/${job.id}`)
          assert.deepStrictEqual(Object.keys(job), [
            "id",
            "jobRevision",
            "status",
            "request",
            "constraints",
            "objective",
            "questions",
            "proposal",
            "outcome",
            "createdAt",
            "updatedAt"
          ])
          assert.strictEqual(job.status, "interpreting")
          assert.strictEqual(job.request, tableRequest)
          assert.deepStrictEqual(job.constraints, [{ ...budget, id: job.constraints[0].id, source: "caller" }])
          assert.deepStrictEqual([job.objective, job.questions, job.proposal, job.outcome], [null, [], null, null])

          const asked = yield* settled(url, key, job.id)
          assert.strictEqual(asked.status, "awaiting_input")
          assert.deepStrictEqual(asked.questions.map((q: { id: string }) => q.id), ["q_date"])
          assert.strictEqual(asked.objective.kind, "reservation")
          assert.isTrue(asked.constraints.some((c: { source: string }) => c.source === "interpreted"))

          const answered = yield* call(url, {
            path: `/v1/jobs/${job.id}/input`,
            key,
            idempotencyKey: newIdempotencyKey(),
            body: { jobRevision: 1, answers: { q_date: "next Friday at 8pm" } }
          })
          assert.strictEqual(answered.status, 200, answered.body)
          assert.strictEqual(answered.headers.location, undefined)
          assert.strictEqual(JSON.parse(answered.body).jobRevision, 2)
          const planned = yield* settled(url, key, job.id)
          assert.strictEqual(planned.status, "awaiting_approval")
          assert.strictEqual(planned.proposal.status, "open")
          assert.deepStrictEqual(planned.questions, [])
          assert.isTrue(planned.constraints.some((c: { type: string }) => c.type === "window"))

          const { asOf, ...revisionOne } = JSON.parse(
            (yield* call(url, { path: `/v1/jobs/${job.id}?revision=1`, key })).body
          )
          assert.deepStrictEqual(revisionOne, asked)
          assert.strictEqual(asOf.jobRevision, 1)
        }))

      it.effect("changes constraints: equal ones change nothing; a stale or terminal change is a 409", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const job = JSON.parse((yield* createJob(url, key)).body)
          yield* settled(url, key, job.id)
          const change = (body: unknown) =>
            call(url, { path: `/v1/jobs/${job.id}/constraints`, key, idempotencyKey: newIdempotencyKey(), body })
          const same = yield* change({ jobRevision: 1, constraints: [budget] })
          assert.strictEqual(same.status, 200)
          assert.strictEqual(JSON.parse(same.body).jobRevision, 1)
          expectError(yield* change({ jobRevision: 2, constraints: [] }), 409, "revision_mismatch")
          const changed = yield* change({ jobRevision: 1, constraints: [] })
          assert.strictEqual(JSON.parse(changed.body).jobRevision, 2)
          assert.strictEqual(JSON.parse(changed.body).status, "interpreting")
          const cancelled = yield* call(url, {
            method: "POST",
            path: `/v1/jobs/${job.id}/cancel`,
            key,
            idempotencyKey: newIdempotencyKey()
          })
          assert.strictEqual(cancelled.status, 200)
          assert.strictEqual(JSON.parse(cancelled.body).status, "cancelled")
          assert.strictEqual(JSON.parse(cancelled.body).jobRevision, 2)
          // invalid_state wins over revision_mismatch.
          expectError(yield* change({ jobRevision: 1, constraints: [budget] }), 409, "invalid_state")
          expectError(
            yield* call(url, { path: `/v1/jobs/${job.id}/cancel`, key, idempotencyKey: newIdempotencyKey(), body: {} }),
            409,
            "invalid_state"
          )
        }))

      it.effect("answers only open questions: 422 for an unknown id, 409 when none is open", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const job = JSON.parse((yield* createJob(url, key)).body)
          const answer = (body: unknown) =>
            call(url, { path: `/v1/jobs/${job.id}/input`, key, idempotencyKey: newIdempotencyKey(), body })
          yield* settled(url, key, job.id)
          const unknown = expectError(
            yield* answer({ jobRevision: 1, answers: { q_nope: "x" } }),
            422,
            "invalid_request"
          )
          assert.include(unknown, "q_date")
          expectError(yield* answer({ jobRevision: 1, answers: {} }), 422, "invalid_request")
          expectError(yield* answer({ jobRevision: 1, answers: { q_date: "   " } }), 422, "invalid_request")
          expectError(yield* answer({ jobRevision: 3, answers: { q_date: "Friday" } }), 409, "revision_mismatch")
          assert.strictEqual((yield* answer({ jobRevision: 1, answers: { q_date: "next Friday at 8pm" } })).status, 200)
          yield* settled(url, key, job.id)
          expectError(yield* answer({ jobRevision: 2, answers: { q_date: "Friday" } }), 409, "invalid_state")
        }))

      it.effect("cancels with an empty body or {}, and refuses any other document", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const cancel = (id: string, rest: Partial<Parameters<typeof call>[1]>) =>
            call(url, {
              method: "POST",
              path: `/v1/jobs/${id}/cancel`,
              key,
              idempotencyKey: newIdempotencyKey(),
              ...rest
            })
          const first = JSON.parse((yield* createJob(url, key)).body)
          const second = JSON.parse((yield* createJob(url, key)).body)
          assert.strictEqual((yield* cancel(first.id, {})).status, 200)
          assert.strictEqual((yield* cancel(second.id, { body: {} })).status, 200)
          const third = JSON.parse((yield* createJob(url, key)).body)
          expectError(yield* cancel(third.id, { body: { reason: "x" } }), 422, "invalid_request")
        }))

      it.effect("lists newest first by pages and status; bad parameters are 422", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const ids: Array<string> = []
          for (let i = 0; i < 3; i++) {
            ids.push(JSON.parse((yield* createJob(url, key, { request: `Job ${i}`, constraints: [] })).body).id)
          }
          yield* call(url, {
            method: "POST",
            path: `/v1/jobs/${ids[0]}/cancel`,
            key,
            idempotencyKey: newIdempotencyKey()
          })
          const page = JSON.parse((yield* call(url, { path: "/v1/jobs?limit=2", key })).body)
          assert.deepStrictEqual(Object.keys(page), ["data", "nextCursor"])
          assert.deepStrictEqual(page.data.map((job: { id: string }) => job.id), [ids[2], ids[1]])
          const next = JSON.parse(
            (yield* call(url, { path: `/v1/jobs?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`, key })).body
          )
          assert.deepStrictEqual(next.data.map((job: { id: string }) => job.id), [ids[0]])
          assert.strictEqual(next.nextCursor, null)
          const cancelled = JSON.parse((yield* call(url, { path: "/v1/jobs?status=cancelled", key })).body)
          assert.deepStrictEqual(cancelled.data.map((job: { id: string }) => job.id), [ids[0]])
          for (
            const query of ["limit=0", "limit=101", "limit=abc", "limit=1&limit=2", "status=done", "cursor=%24%24"]
          ) {
            expectError(yield* call(url, { path: `/v1/jobs?${query}`, key }), 422, "invalid_request")
          }
        }))

      it.effect("reads a Job at a revision or a position; one that never existed is 404; a bad one 422", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const job = JSON.parse((yield* createJob(url, key)).body)
          assert.strictEqual((yield* call(url, { path: `/v1/jobs/${job.id}?revision=1`, key })).status, 200)
          expectError(yield* call(url, { path: `/v1/jobs/${job.id}?revision=2`, key }), 404, "not_found")
          expectError(yield* call(url, { path: `/v1/jobs/${job.id}?revision=x`, key }), 422, "invalid_request")
          expectError(yield* call(url, { path: `/v1/jobs/${job.id}?at=0`, key }), 404, "not_found")
          expectError(yield* call(url, { path: `/v1/jobs/${job.id}?at=-1`, key }), 422, "invalid_request")
          expectError(yield* call(url, { path: `/v1/jobs/${job.id}?revision=1&at=9`, key }), 422, "invalid_request")
          expectError(yield* call(url, { path: "/v1/jobs/job_nope", key }), 404, "not_found")
        }))

      it.effect("shows another account's Job as 404 and lets it change nothing", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const owner = yield* newKey()
          const other = yield* newKey()
          const job = JSON.parse((yield* createJob(url, owner)).body)
          expectError(yield* call(url, { path: `/v1/jobs/${job.id}`, key: other }), 404, "not_found")
          expectError(
            yield* call(url, { method: "POST", path: `/v1/jobs/${job.id}/cancel`, key: other, idempotencyKey: "k" }),
            404,
            "not_found"
          )
          assert.strictEqual(JSON.parse((yield* call(url, { path: `/v1/jobs/${job.id}`, key: owner })).body).id, job.id)
        }))
    })

    describe("authentication", () => {
      it.effect("answers 401 with WWW-Authenticate: Bearer without a valid key, on every operation", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const revoked = yield* newKey()
          const keys = yield* ApiKeys.ApiKeys
          const principal = Option.getOrThrow(yield* keys.authenticate(Redacted.make(revoked)))
          yield* keys.revoke(principal.keyId)
          const wrong = [
            {},
            { authorization: `Basic ${Buffer.from("a:b").toString("base64")}` },
            { authorization: "Bearer" },
            { authorization: "Bearer rc_live_short" },
            { authorization: `Bearer ${key.slice(0, -1)}x` },
            { authorization: `Bearer ${revoked}` }
          ]
          for (const headers of wrong) {
            expectUnauthorized(yield* call(url, { path: "/v1/jobs", headers }))
            // Before the idempotency key and the body are looked at.
            expectUnauthorized(yield* call(url, { method: "POST", path: "/v1/jobs", headers, rawBody: "{" }))
            expectUnauthorized(yield* call(url, { path: "/v1/jobs/job_x", headers }))
          }
          assert.strictEqual((yield* call(url, { path: "/v1/jobs", key })).status, 200)
        }))

      it.effect("answers 403 for a missing scope, before the idempotency key and the body", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const reader = yield* newKey(["jobs:read"])
          const writer = yield* newKey(["jobs:write"])
          expectError(
            yield* call(url, { method: "POST", path: "/v1/jobs", key: reader, rawBody: "{" }),
            403,
            "forbidden"
          )
          expectError(yield* createJob(url, reader), 403, "forbidden")
          expectError(yield* call(url, { path: "/v1/jobs", key: writer }), 403, "forbidden")
          expectError(yield* call(url, { path: "/v1/jobs/job_x", key: writer }), 403, "forbidden")
          assert.strictEqual((yield* call(url, { path: "/v1/jobs", key: reader })).status, 200)
          assert.strictEqual((yield* createJob(url, writer)).status, 201)
        }))
    })

    describe("idempotency", () => {
      it.effect("requires a key of 1 to 255 visible ASCII characters, before reading the body", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const body = { request: "A haircut", constraints: [] }
          expectError(yield* call(url, { path: "/v1/jobs", key, body }), 400, "idempotency_key_required")
          expectError(
            yield* call(url, { method: "POST", path: "/v1/jobs", key, rawBody: "{" }),
            400,
            "idempotency_key_required"
          )
          for (const idempotencyKey of ["", "a b", "a\tb", "x".repeat(256)]) {
            expectError(
              yield* call(url, { path: "/v1/jobs", key, idempotencyKey, body }),
              400,
              "idempotency_key_required"
            )
          }
          assert.strictEqual(
            (yield* call(url, { path: "/v1/jobs", key, idempotencyKey: "~".repeat(255), body })).status,
            201
          )
          assert.strictEqual((yield* call(url, { path: "/v1/jobs", key, idempotencyKey: "!", body })).status, 201)
        }))

      it.effect("answers 400 invalid_json for a body that is not JSON, and stores nothing", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const idempotencyKey = newIdempotencyKey()
          const json = { "content-type": "application/json" }
          const bad = [
            { rawBody: "{", headers: json },
            { rawBody: "", headers: json },
            { rawBody: "[1,", headers: json },
            { rawBody: JSON.stringify({ request: "x", constraints: [] }), headers: { "content-type": "text/plain" } },
            { rawBody: JSON.stringify({ request: "x", constraints: [] }) },
            { rawBody: Buffer.from([0x7b, 0xff, 0x7d]), headers: json },
            { rawBody: `{"request":"${"x".repeat(300_000)}","constraints":[]}`, headers: json }
          ]
          for (const request of bad) {
            expectError(
              yield* call(url, { method: "POST", path: "/v1/jobs", key, idempotencyKey, ...request }),
              400,
              "invalid_json"
            )
          }
          // Nothing was stored under the key: it still runs the operation.
          assert.strictEqual((yield* createJob(url, key, undefined, idempotencyKey)).status, 201)
        }))

      it.effect("replays the stored answer byte for byte, for the same request in any JSON spelling", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const idempotencyKey = newIdempotencyKey()
          const first = yield* createJob(
            url,
            key,
            { request: "Flowers for Ann, 40 EUR", constraints: [budget] },
            idempotencyKey
          )
          assert.strictEqual(first.status, 201)
          const respelled = `{ "constraints": [ {"max": {"currency": "EUR", "amount": "200.00"}, "type": "budget"} ],
            "request": "Flowers for Ann, 40 EUR" }`
          for (
            const rawBody of [JSON.stringify({ request: "Flowers for Ann, 40 EUR", constraints: [budget] }), respelled]
          ) {
            const again = yield* call(url, {
              method: "POST",
              path: "/v1/jobs",
              key,
              idempotencyKey,
              rawBody,
              headers: { "content-type": "application/json" }
            })
            assertReplayed(again, first)
          }
          // Once stored, the Job's later changes do not alter the replayed answer.
          yield* call(url, {
            method: "POST",
            path: `/v1/jobs/${JSON.parse(first.body).id}/cancel`,
            key,
            idempotencyKey: newIdempotencyKey()
          })
          assert.strictEqual(
            (yield* createJob(url, key, { request: "Flowers for Ann, 40 EUR", constraints: [budget] }, idempotencyKey))
              .body,
            first.body
          )
        }))

      it.effect("refuses a key reused for another body or path (422), and scopes keys to the account", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const idempotencyKey = newIdempotencyKey()
          const job = JSON.parse((yield* createJob(url, key, undefined, idempotencyKey)).body)
          expectError(
            yield* createJob(url, key, { request: "Something else", constraints: [] }, idempotencyKey),
            422,
            "idempotency_key_reused"
          )
          expectError(
            yield* call(url, { method: "POST", path: `/v1/jobs/${job.id}/cancel`, key, idempotencyKey }),
            422,
            "idempotency_key_reused"
          )
          // Another account's key of the same name is its own: a new Job, not this account's answer.
          const other = yield* createJob(url, yield* newKey(), undefined, idempotencyKey)
          assert.strictEqual(other.status, 201)
          assert.notStrictEqual(JSON.parse(other.body).id, job.id)
        }))

      it.effect("answers 409 idempotency_key_in_use with Retry-After while another request holds the key", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const idempotency = yield* Idempotency.Idempotency
          const idempotencyKey = newIdempotencyKey()
          const body = { request: "A haircut", constraints: [] }
          const held = yield* idempotency.claim(
            yield* accountOf(key),
            idempotencyKey,
            fingerprintOf("POST", "/v1/jobs", body)
          )
          assert.strictEqual(held._tag, "Claimed")
          const busy = yield* createJob(url, key, body, idempotencyKey)
          expectError(busy, 409, "idempotency_key_in_use")
          assert.strictEqual(busy.headers["retry-after"], "1")
          if (held._tag === "Claimed") yield* idempotency.release(held.claim)
          assert.strictEqual((yield* createJob(url, key, body, idempotencyKey)).status, 201)
        }))

      it.effect("refuses a constraint of no known type, or not an object, as invalid_request naming it", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const refused = (constraints: ReadonlyArray<unknown>) =>
            createJob(url, key, { request: "A haircut", constraints }, newIdempotencyKey())
          assert.strictEqual(
            expectError(yield* refused([{ type: "colour", text: "red" }]), 422, "invalid_request"),
            "constraints[0].type must be one of budget, deadline, window, location, quantity, timezone, note."
          )
          assert.strictEqual(
            expectError(yield* refused([{ type: "note", text: "x" }, "x"]), 422, "invalid_request"),
            "constraints[1] must be an object."
          )
        }))

      it.effect("stores 4xx answers given after the claim, and replays them", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const idempotencyKey = newIdempotencyKey()
          const invalid = {
            request: "A haircut",
            constraints: [{ type: "budget", max: { amount: "1", currency: "EURO" } }]
          }
          const first = yield* createJob(url, key, invalid, idempotencyKey)
          assert.include(expectError(first, 422, "invalid_request"), "constraints[0].max.currency")
          assertReplayed(yield* createJob(url, key, invalid, idempotencyKey), first)
          // 422 invalid_request wins over 404; a 404 is stored as well.
          const change = (body: unknown, idempotencyKey: string) =>
            call(url, { path: "/v1/jobs/job_missing/constraints", key, idempotencyKey, body })
          expectError(yield* change({ jobRevision: 0, constraints: [] }, newIdempotencyKey()), 422, "invalid_request")
          const missingKey = newIdempotencyKey()
          const missing = yield* change({ jobRevision: 1, constraints: [] }, missingKey)
          assert.strictEqual(expectError(missing, 404, "not_found"), "No such resource for this account.")
          assertReplayed(yield* change({ jobRevision: 1, constraints: [] }, missingKey), missing)
          // A refusal of the Job itself (a stale revision) is stored as its wire error, byte for byte.
          const job = JSON.parse((yield* createJob(url, key)).body)
          const staleKey = newIdempotencyKey()
          const stale = () =>
            call(url, {
              path: `/v1/jobs/${job.id}/constraints`,
              key,
              idempotencyKey: staleKey,
              body: { jobRevision: 2, constraints: [] }
            })
          const refused = yield* stale()
          expectError(refused, 409, "revision_mismatch")
          assertReplayed(yield* stale(), refused)
        }))

      it.effect("20 identical creates at once with one Idempotency-Key make exactly one Job", sameKeyAtOnce)
      it.effect("20 creates at once with 20 keys make 20 Jobs", differentKeysAtOnce)
    })
  }
)

layer(previewServerWith(servicesLive()), { excludeTestServices: true, timeout: "120 seconds" })(
  `the Job API over HTTP (${TestDatabase.kind})`,
  (it) => {
    it.effect("creates, asks, takes the answer and plans; replays from the database", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        const idempotencyKey = newIdempotencyKey()
        const created = yield* createJob(url, key, undefined, idempotencyKey)
        assert.strictEqual(created.status, 201, created.body)
        const replay = yield* createJob(url, key, undefined, idempotencyKey)
        assert.strictEqual(replay.body, created.body)
        assert.strictEqual(replay.headers["idempotent-replayed"], "true")
        const job = JSON.parse(created.body)
        const asked = yield* settled(url, key, job.id)
        assert.strictEqual(asked.status, "awaiting_input")
        const answered = yield* call(url, {
          path: `/v1/jobs/${job.id}/input`,
          key,
          idempotencyKey: newIdempotencyKey(),
          body: { jobRevision: 1, answers: { q_date: "next Friday at 8pm" } }
        })
        assert.strictEqual(answered.status, 200, answered.body)
        assert.strictEqual((yield* settled(url, key, job.id)).status, "awaiting_approval")
        const events = yield* publishedEvents(yield* accountOf(key), job.id)
        assert.deepStrictEqual(events.map((event) => event.type), [
          "job.created",
          "job.input_requested",
          "job.revised",
          "work.invalidated",
          "job.interpreted",
          "proposal.presented"
        ])
      }))

    it.effect("20 identical creates at once with one Idempotency-Key make exactly one Job", sameKeyAtOnce)
    it.effect("20 creates at once with 20 keys make 20 Jobs", differentKeysAtOnce)
  }
)
