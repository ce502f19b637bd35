import { assert, describe, layer } from "@effect/vitest"
import type { Layer } from "effect"
import { Effect } from "effect"
import fc from "fast-check"
import { currencyCodes } from "../src/schema/Money.ts"
import { baseUrl } from "./support/Http.ts"
import type { RawResponse } from "./support/Http.ts"
import type { PreviewServices } from "./support/JobsHttp.ts"
import { call, createJob, newKey, previewServerWith, servicesLive, servicesTest, settled } from "./support/JobsHttp.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

/**
 * The Job API attacked as a property-based tester attacks it from its OpenAPI document: random
 * requests to every operation, some valid and most not (bodies, headers, paths and queries), from keys
 * with and without the scope. For every one: never a 5xx (the store is healthy: every fault is the
 * client's), an answer the document allows (`send` holds each to it), and a refused request stores
 * nothing (no Job, no revision).
 */

interface Target {
  readonly id: string
  readonly revision: number
  readonly hash: string
}

const texts = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom("", " ", "\u0000", "%00", "../", "job_", "sha256:", "\ud800", "é".repeat(300))
)

const amounts = fc.oneof(
  fc.constantFrom("0", "0.01", "180.00", "999999999999999.9999", "1e3", "-1", "01", "1.23456", ""),
  fc.stringMatching(/^[0-9]{1,18}(\.[0-9]{1,5})?$/)
)
const currencies = fc.oneof(fc.constantFrom(...[...currencyCodes].slice(0, 20), "XXX", "eur", "EURO"), texts)
const timestamps = fc.oneof(
  fc.constantFrom("2027-03-12T19:00:00+01:00", "2027-02-30T10:00:00Z", "2027-03-12T19:00:00", "9999-12-31T23:59:60Z"),
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  texts
)

const constraint = fc.oneof(
  fc.record({ type: fc.constant("budget"), max: fc.record({ amount: amounts, currency: currencies }) }),
  fc.record({ type: fc.constant("deadline"), by: timestamps }),
  fc.record({ type: fc.constant("window"), start: timestamps, end: timestamps }),
  fc.record({ type: fc.constant("location"), place: texts }),
  fc.record({
    type: fc.constant("quantity"),
    count: fc.oneof(fc.integer(), fc.double(), fc.constant(10 ** 13)),
    unit: fc.option(texts, { nil: undefined })
  }, { requiredKeys: ["type", "count"] }),
  fc.record({ type: fc.constant("timezone"), zone: fc.oneof(fc.constantFrom("Europe/Lisbon", "Mars/Base"), texts) }),
  fc.record({ type: fc.constant("note"), text: texts }),
  fc.record({ type: texts }),
  fc.jsonValue({ maxDepth: 2 })
)

/** A body for the operation: one of its own shape (values valid or not), or anything at all. */
const bodyFor = (operation: string, target: Target) => {
  const revision = fc.oneof(fc.constant(target.revision), fc.integer(), fc.constant("1"))
  const shaped = {
    createJob: fc.record({ request: texts, constraints: fc.array(constraint, { maxLength: 4 }) }, {
      requiredKeys: ["request"]
    }),
    changeConstraints: fc.record({ jobRevision: revision, constraints: fc.array(constraint, { maxLength: 3 }) }),
    answerQuestions: fc.record({ jobRevision: revision, answers: fc.dictionary(texts, texts, { maxKeys: 3 }) }),
    cancelJob: fc.constantFrom({}, { reason: "x" }),
    createApproval: fc.record({
      proposalHash: fc.oneof(fc.constant(target.hash), texts),
      jobRevision: revision,
      decision: fc.oneof(fc.constantFrom("approve", "reject"), texts),
      reason: fc.option(texts, { nil: undefined })
    }, { requiredKeys: ["proposalHash", "jobRevision", "decision"] }),
    createApprovalLink: fc.record({ proposalHash: fc.oneof(fc.constant(target.hash), texts), jobRevision: revision })
  }[operation]
  const document = fc.oneof(
    { weight: 3, arbitrary: shaped ?? fc.constant({}) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) }
  ).map((value) => JSON.stringify(value))
  return fc.oneof(
    { weight: 6, arbitrary: document },
    {
      weight: 2,
      arbitrary: fc.constantFrom("", "{", "[1,", "{\"request\":1e400}", "{\"request\":\"\\ud800\"}", "\ufeff{}")
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) }
  )
}

/** As a path segment: percent-encoded (text that is not well-formed Unicode has no encoding). */
const encoded = (text: fc.Arbitrary<string>) => text.filter((s) => s.isWellFormed()).map(encodeURIComponent)

const idFor = (target: Target) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.constant(target.id) },
    { weight: 1, arbitrary: fc.constant(`job_${"0".repeat(24)}`) },
    { weight: 1, arbitrary: fc.constantFrom("job_%00", "%E0%A4%A", "a".repeat(150), "job_1", "JOB_X") },
    { weight: 1, arbitrary: encoded(fc.string({ minLength: 1, maxLength: 30 })) }
  )

const operations = [
  ["createJob", "POST", "/v1/jobs"],
  ["listJobs", "GET", "/v1/jobs"],
  ["getJob", "GET", "/v1/jobs/{id}"],
  ["changeConstraints", "POST", "/v1/jobs/{id}/constraints"],
  ["answerQuestions", "POST", "/v1/jobs/{id}/input"],
  ["cancelJob", "POST", "/v1/jobs/{id}/cancel"],
  ["getProposal", "GET", "/v1/jobs/{id}/proposals/{hash}"],
  ["createApproval", "POST", "/v1/jobs/{id}/approvals"],
  ["createApprovalLink", "POST", "/v1/jobs/{id}/approval-links"],
  ["listJobEvents", "GET", "/v1/jobs/{id}/events"],
  ["listEvents", "GET", "/v1/events"]
] as const

const queryValues = fc.oneof(fc.constantFrom("0", "1", "20", "100", "101", "-1", "01", "planning", "x"), texts)
const queries = fc.option(
  fc.array(
    fc.tuple(fc.constantFrom("limit", "status", "cursor", "after", "revision", "at", "limt", "x"), queryValues),
    { minLength: 1, maxLength: 3 }
  ).map((pairs) =>
    "?" + pairs.map(([name, value]) => `${name}=${value.isWellFormed() ? encodeURIComponent(value) : "%ZZ"}`).join("&")
  ),
  { nil: "" }
)

interface Request {
  readonly method: string
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string | undefined
}

const requests = (target: Target, keys: ReadonlyArray<string>) =>
  fc.constantFrom(...operations).chain(([operation, method, template]) =>
    fc.record({
      method: fc.oneof({ weight: 8, arbitrary: fc.constant(method) }, {
        weight: 1,
        arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
      }),
      id: idFor(target),
      hash: fc.oneof(fc.constant(target.hash), fc.constant(`sha256:${"0".repeat(64)}`), encoded(texts)),
      query: queries,
      key: fc.oneof(
        { weight: 8, arbitrary: fc.constant(keys[0]!) },
        { weight: 1, arbitrary: fc.constantFrom(...keys) },
        { weight: 1, arbitrary: texts }
      ),
      idempotencyKey: fc.option(fc.oneof(fc.uuid(), texts), { nil: undefined, freq: 6 }),
      contentType: fc.oneof(
        { weight: 8, arbitrary: fc.constant("application/json") },
        { weight: 1, arbitrary: fc.constantFrom("application/json; charset=utf-8", "text/plain", "") }
      ),
      lastEventId: fc.option(fc.oneof(fc.constantFrom("0", "007", "", "9007199254740992"), texts), {
        nil: undefined,
        freq: 4
      }),
      accept: fc.constantFrom("application/json", "*/*"),
      body: bodyFor(operation, target)
    }).map((r): Request => {
      const headers: Record<string, string> = { accept: r.accept }
      if (/^[\x21-\x7e]+$/.test(r.key)) headers.authorization = `Bearer ${r.key}`
      if (r.idempotencyKey !== undefined && /^[\x20-\x7e]*$/.test(r.idempotencyKey)) {
        headers["idempotency-key"] = r.idempotencyKey
      }
      if (r.lastEventId !== undefined && /^[\x20-\x7e]*$/.test(r.lastEventId)) headers["last-event-id"] = r.lastEventId
      const post = r.method === "POST"
      if (post && r.contentType !== "") headers["content-type"] = r.contentType
      return {
        method: r.method,
        path: template.replace("{id}", r.id).replace("{hash}", r.hash) + r.query,
        headers,
        body: post ? r.body : undefined
      }
    })
  )

/** What the account holds that a request could have created: its Jobs and their revisions. */
const holdings = (url: string, key: string) =>
  Effect.map(
    call(url, { path: "/v1/jobs?limit=100", key }),
    (response) =>
      (JSON.parse(response.body).data as ReadonlyArray<{ id: string; jobRevision: number }>)
        .map((job) => `${job.id}@${job.jobRevision}`).sort().join(" ")
  )

const suite = <E>(name: string, services: Layer.Layer<PreviewServices, E>) =>
  layer(previewServerWith(services), { excludeTestServices: true })(name, (it) => {
    it.effect(
      "never a 5xx, every answer as documented, nothing stored from a refused request",
      () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const reader = yield* newKey(["jobs:read"])
          const created = yield* createJob(url, key, {
            request: "Book a table for 4 at an Italian restaurant in Lisbon tomorrow at 8pm",
            constraints: [{ type: "budget", max: { amount: "200.00", currency: "EUR" } }]
          })
          const job = yield* settled(url, key, JSON.parse(created.body).id)
          const target: Target = {
            id: job.id,
            revision: job.jobRevision,
            hash: job.proposal?.proposalHash ?? `sha256:${"1".repeat(64)}`
          }
          const statuses = new Map<number, number>()
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(requests(target, [key, reader]), async (request) => {
                const send = (extra: Partial<{ readonly body: string }> = {}) =>
                  call(url, {
                    method: request.method,
                    path: request.path,
                    headers: request.headers,
                    ...(request.body === undefined ? {} : { rawBody: request.body }),
                    ...extra
                  })
                const before = await Effect.runPromise(holdings(url, key))
                const answer: RawResponse = await Effect.runPromise(send())
                statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
                assert.isBelow(answer.status, 500, `${request.method} ${request.path}: ${answer.body}`)
                if (answer.status >= 400) {
                  const after = await Effect.runPromise(holdings(url, key))
                  assert.strictEqual(after, before, `${request.method} ${request.path} was refused but stored`)
                }
              }),
              { numRuns: 500, seed: Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31) }
            )
          )
          // The requests reached past the first checks: some were served, some refused for what they said.
          const seen = [...statuses.keys()]
          for (const status of [200, 401, 403, 404, 405, 422]) {
            assert.include(seen, status, JSON.stringify([...statuses]))
          }
        }),
      { timeout: 240_000 }
    )
  })

describe("the Job API under random requests", () => {
  suite("in memory", servicesTest())
  suite(`on ${TestDatabase.kind}`, servicesLive())
})
