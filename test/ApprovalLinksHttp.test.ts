import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { PreviewHttpLive } from "../src/http/JobsPreview.ts"
import * as RequestLog from "../src/http/RequestLog.ts"
import { nodeServer } from "../src/http/Server.ts"
import * as MemoryWaitlist from "../src/services/waitlist/MemoryWaitlist.ts"
import { readEventStream } from "./support/Events.ts"
import { baseUrl, send, serverWith } from "./support/Http.ts"
import type { RawResponse } from "./support/Http.ts"
import {
  budget,
  call,
  expectError,
  newIdempotencyKey,
  newKey,
  quickTiming,
  servicesLive,
  servicesTest,
  settled
} from "./support/JobsHttp.ts"
import type { PreviewServices } from "./support/JobsHttp.ts"
import * as TestDatabase from "./support/TestDatabase.ts"
import * as TestTime from "./support/TestTime.ts"

/**
 * Approval links over HTTP (docs/API.md, "Approval links"), on both stores: the API that makes them, in
 * the order of "which error wins"; the page, its exact proposal and its event stream, with no API key;
 * a decision from the page, and every way one is refused: from another site, without the page's form
 * token, replayed, with a token of another Job, a guessed token, expired, superseded. And the token is
 * never in the request log.
 */

const clear = "Book a table for 4 at an Italian restaurant in Lisbon next Friday at 8pm"

/** Every request line the log wrote, in order. */
const logged: Array<string> = []

/** The preview's HTTP stack with the request log on (into `logged`), over the given services. */
const server = <E, R>(services: Layer.Layer<PreviewServices | TestTime.TestTime, E, R>) =>
  PreviewHttpLive.pipe(
    Layer.provideMerge(services),
    Layer.provideMerge(Layer.unwrap(Effect.map(
      RequestLog.make((chunk) => logged.push(...chunk.trim().split("\n"))),
      (log) => nodeServer({ host: "127.0.0.1", port: 0 }, log)
    ))),
    Layer.provide(MemoryWaitlist.layerMemory)
  )

/** A Job with an open proposal, waiting for a decision. */
const proposed = (url: string, key: string, constraints: ReadonlyArray<unknown> = [budget]) =>
  Effect.gen(function*() {
    const created = yield* call(url, {
      path: "/v1/jobs",
      key,
      idempotencyKey: newIdempotencyKey(),
      body: { request: clear, constraints }
    })
    assert.strictEqual(created.status, 201, created.body)
    const job = yield* settled(url, key, JSON.parse(created.body).id)
    assert.strictEqual(job.status, "awaiting_approval", JSON.stringify(job))
    return job
  })

const makeLink = (
  url: string,
  key: string,
  job: { id: string; jobRevision: number; proposal: { proposalHash: string } }
) =>
  call(url, {
    path: `/v1/jobs/${job.id}/approval-links`,
    key,
    idempotencyKey: newIdempotencyKey(),
    body: { proposalHash: job.proposal.proposalHash, jobRevision: job.jobRevision }
  })

/** A Job with an open proposal and a link to it; answers the link's path (`/approve/{token}`) too. */
const linked = (constraints?: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    const key = yield* newKey()
    const job = yield* proposed(url, key, constraints)
    const response = yield* makeLink(url, key, job)
    assert.strictEqual(response.status, 201, response.body)
    const link = JSON.parse(response.body)
    const path = new URL(link.url).pathname
    return { url, key, job, link, path, token: path.slice("/approve/".length) }
  })

const get = (url: string, path: string, headers: Record<string, string> = {}) =>
  send(url, { method: "GET", path, headers })

/** The page's form token. */
const formOf = (page: RawResponse) => /name="form" value="([^"]+)"/.exec(page.body)?.[1]

const post = (url: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  send(url, {
    method: "POST",
    path: `${path}/decision`,
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString()
  })

const postJson = (url: string, path: string, document: unknown, headers: Record<string, string> = {}) =>
  send(url, {
    method: "POST",
    path: `${path}/decision`,
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(document)
  })

/** The headers every answer under /approve/ carries. */
const expectProtected = (response: RawResponse) => {
  assert.strictEqual(response.headers["cache-control"], "no-store")
  assert.strictEqual(response.headers["referrer-policy"], "no-referrer")
  const policy = String(response.headers["content-security-policy"])
  assert.include(policy, "frame-ancestors 'none'")
  assert.include(policy, "default-src 'none'")
  assert.include(policy, "script-src 'self'")
  assert.notInclude(policy, "unsafe-inline")
  assert.notInclude(policy, "unsafe-eval")
}

const eventsOf = (url: string, key: string, id: string) =>
  Effect.map(
    call(url, { path: `/v1/jobs/${id}/events?limit=1000`, key }),
    (response) => JSON.parse(response.body).data as ReadonlyArray<{ type: string; data: Record<string, unknown> }>
  )

const jobOf = (url: string, key: string, id: string) =>
  Effect.map(call(url, { path: `/v1/jobs/${id}`, key }), (response) => JSON.parse(response.body))

const behaviour = <E>(name: string, services: Layer.Layer<PreviewServices | TestTime.TestTime, E>) =>
  layer(server(services), { timeout: "120 seconds", excludeTestServices: true })(name, (it) => {
    describe("POST /v1/jobs/{id}/approval-links", () => {
      it.effect("answers 201 with a link to the page, records it, and replays it by its Idempotency-Key", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const job = yield* proposed(url, key)
          const idempotencyKey = newIdempotencyKey()
          const body = { proposalHash: job.proposal.proposalHash, jobRevision: job.jobRevision }
          const path = `/v1/jobs/${job.id}/approval-links`
          const first = yield* call(url, { path, key, idempotencyKey, body })
          assert.strictEqual(first.status, 201, first.body)
          const link = JSON.parse(first.body)
          assert.deepStrictEqual(Object.keys(link), ["id", "url", "jobId", "jobRevision", "proposalHash", "expiresAt"])
          assert.match(link.url, new RegExp(`^${url}/approve/[A-Za-z0-9_-]{43}$`))
          assert.deepStrictEqual(
            [link.jobId, link.jobRevision, link.proposalHash, link.expiresAt],
            [job.id, 1, job.proposal.proposalHash, job.proposal.document.expiresAt]
          )
          const replay = yield* call(url, { path, key, idempotencyKey, body })
          assert.strictEqual(replay.body, first.body)
          assert.strictEqual(replay.headers["idempotent-replayed"], "true")
          const another = JSON.parse((yield* makeLink(url, key, job)).body)
          assert.notStrictEqual(another.url, link.url)
          const created = (yield* eventsOf(url, key, job.id)).filter((event) => event.type === "approval_link.created")
          assert.deepStrictEqual(created.map((event) => event.data), [
            { linkId: link.id, proposalHash: job.proposal.proposalHash },
            { linkId: another.id, proposalHash: job.proposal.proposalHash }
          ])
        }))

      it.effect("answers every error as an approval does, in the same order", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const account = `acct-${Math.random().toString(36).slice(2)}`
          const key = yield* newKey(["jobs:read", "jobs:write", "approvals:write"], account)
          const job = yield* proposed(url, key)
          const good = { proposalHash: job.proposal.proposalHash, jobRevision: job.jobRevision }
          const path = `/v1/jobs/${job.id}/approval-links`
          const linkOf = (body: unknown, id = job.id, withKey = key) =>
            call(url, {
              path: `/v1/jobs/${id}/approval-links`,
              key: withKey,
              idempotencyKey: newIdempotencyKey(),
              body
            })

          expectError(yield* call(url, { path, idempotencyKey: newIdempotencyKey(), body: good }), 401, "unauthorized")
          const writer = yield* newKey(["jobs:read", "jobs:write"], account)
          expectError(yield* linkOf(good, job.id, writer), 403, "forbidden")
          expectError(yield* call(url, { path, key, body: good }), 400, "idempotency_key_required")
          expectError(
            yield* call(url, {
              path,
              key,
              idempotencyKey: newIdempotencyKey(),
              rawBody: "{",
              headers: { "content-type": "application/json" }
            }),
            400,
            "invalid_json"
          )
          for (
            const bad of [{ ...good, proposalHash: "sha256:abc" }, { ...good, decision: "approve" }, {
              jobRevision: 1
            }]
          ) {
            expectError(yield* linkOf(bad), 422, "invalid_request")
            expectError(yield* linkOf(bad, "job_unknown"), 422, "invalid_request")
          }
          expectError(yield* linkOf(good, "job_unknown"), 404, "not_found")
          const stranger = yield* newKey()
          expectError(yield* linkOf(good, job.id, stranger), 404, "not_found")
          expectError(yield* linkOf({ ...good, jobRevision: 2 }), 409, "revision_mismatch")
          expectError(yield* linkOf({ ...good, proposalHash: `sha256:${"a".repeat(64)}` }), 409, "proposal_mismatch")
          assert.notInclude((yield* eventsOf(url, key, job.id)).map((event) => event.type), "approval_link.created")
        }))
    })

    describe("the page", () => {
      it.effect("shows the request, the facts with their words and the exact proposal, with no API key", () =>
        Effect.gen(function*() {
          const { job, path, token, url } = yield* linked()
          const page = yield* get(url, path)
          assert.strictEqual(page.status, 200)
          assert.strictEqual(page.headers["content-type"], "text/html; charset=utf-8")
          expectProtected(page)
          assert.include(page.body, clear)
          assert.include(page.body, job.proposal.proposalHash)
          assert.include(page.body, `href="${path}/proposal"`)
          assert.include(page.body, `action="${path}/decision"`)
          assert.include(page.body, job.proposal.document.offer.title)
          assert.include(page.body, `${job.proposal.document.spend.amount} ${job.proposal.document.spend.currency}`)
          // Each interpreted fact with the words it came from.
          const interpreted = (job.constraints as ReadonlyArray<
            { source: string; evidence: ReadonlyArray<{ text: string }> }
          >).filter((c) => c.source === "interpreted")
          assert.isNotEmpty(interpreted)
          for (const constraint of interpreted) {
            for (const span of constraint.evidence) assert.include(page.body, `“${span.text}”`)
          }
          assert.match(page.body, /<button type="submit" name="decision" value="approve"[^>]*>Approve<\/button>/)
          assert.match(page.body, /<button type="submit" name="decision" value="reject"[^>]*>Reject<\/button>/)
          // No inline script or style: the policy would refuse them.
          assert.deepStrictEqual(
            Array.from(page.body.matchAll(/<script[^>]*>/g), (match) => match[0]),
            [`<script src="/assets/approval.js" defer>`]
          )
          assert.notMatch(page.body, /<style|style="|\son[a-z]+="/)
          assert.isDefined(formOf(page))
          // Each page its own form token.
          assert.notStrictEqual(formOf(yield* get(url, path)), formOf(page))

          const proposal = yield* get(url, `${path}/proposal`)
          const api = yield* call(url, {
            path: `/v1/jobs/${job.id}/proposals/${job.proposal.proposalHash}`,
            key: (yield* linked()).key
          })
          expectProtected(proposal)
          assert.strictEqual(proposal.status, 200)
          assert.strictEqual(proposal.headers["content-type"], "application/json")
          assert.strictEqual(proposal.headers.etag, `"${job.proposal.proposalHash}"`)
          assert.deepStrictEqual(JSON.parse(proposal.body), job.proposal.document)
          assert.strictEqual(api.status, 404) // another account's key knows nothing of it
          const notModified = yield* get(url, `${path}/proposal`, { "if-none-match": `"${job.proposal.proposalHash}"` })
          assert.strictEqual(notModified.status, 304)

          for (const asset of ["/assets/approval.css", "/assets/approval.js"]) {
            assert.strictEqual((yield* get(url, asset)).status, 200)
          }
          assert.strictEqual(token.length, 43)
        }))

      it.effect("serves the same bytes and ETag as the API's proposal", () =>
        Effect.gen(function*() {
          const { job, key, path, url } = yield* linked()
          const page = yield* get(url, `${path}/proposal`)
          const api = yield* call(url, { path: `/v1/jobs/${job.id}/proposals/${job.proposal.proposalHash}`, key })
          assert.strictEqual(page.body, api.body)
          assert.strictEqual(page.headers.etag, api.headers.etag)
        }))

      it.effect("a guessed or malformed token is a 404 page, and so are its proposal, events and decision", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const guessed = `/approve/${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`
          for (const path of [guessed, "/approve/short", "/approve/%3Cscript%3E"]) {
            const page = yield* get(url, path)
            assert.strictEqual(page.status, 404, path)
            expectProtected(page)
            assert.include(page.body, "This link is not valid")
            assert.notInclude(page.body, "<script>")
            expectError(yield* get(url, `${path}/proposal`), 404, "not_found")
            expectError(yield* get(url, `${path}/events`, { accept: "text/event-stream" }), 404, "not_found")
            const decided = yield* post(url, path, { decision: "approve", form: "x.y" })
            assert.strictEqual(decided.status, 404)
          }
        }))
    })

    describe("POST /approve/{token}/decision", () => {
      it.effect("the page's form approves (303 back to the page), recorded as link:{id}; the page follows the Job", () =>
        Effect.gen(function*() {
          const { job, key, link, path, url } = yield* linked()
          const page = yield* get(url, path)
          // A browser under no-referrer may send `Origin: null` for the page's own form.
          const answer = yield* post(url, path, { decision: "approve", reason: "", form: formOf(page)! }, {
            origin: "null",
            "sec-fetch-site": "same-origin"
          })
          assert.strictEqual(answer.status, 303, answer.body)
          assert.strictEqual(answer.headers.location, path)
          expectProtected(answer)
          const done = yield* settled(url, key, job.id)
          assert.strictEqual(done.status, "completed")
          const recorded = (yield* eventsOf(url, key, job.id)).find((event) => event.type === "approval.recorded")!
          assert.strictEqual(recorded.data.decidedBy, `link:${link.id}`)
          assert.strictEqual(recorded.data.decision, "approve")

          const after = yield* get(url, path)
          assert.strictEqual(after.status, 200)
          assert.include(after.body, "You approved this proposal.")
          assert.include(after.body, done.outcome.reference)
          assert.notInclude(after.body, `name="decision"`)

          // The Job's own events, live from the page's stream, resumable.
          const stream = yield* readEventStream(url, `${path}/events`, {
            key: "none",
            until: (text) => text.includes("event: job.completed")
          })
          assert.strictEqual(stream.status, 200)
          assert.strictEqual(stream.headers["content-type"], "text/event-stream")
          assert.include(stream.text, "event: approval_link.created")
          assert.include(stream.text, "event: job.completed")
          const ids = Array.from(stream.text.matchAll(/^id: (\d+)$/gm), (match) => Number(match[1]))
          const resumed = yield* readEventStream(url, `${path}/events`, {
            key: "none",
            headers: { "last-event-id": String(ids.at(-2)) },
            until: (text) => text.includes("event: job.completed")
          })
          assert.deepStrictEqual(
            Array.from(resumed.text.matchAll(/^id: (\d+)$/gm), (match) => Number(match[1])),
            [ids.at(-1)]
          )
        }))

      it.effect("JSON is accepted too, and answered as the API answers: 201 with the Approval", () =>
        Effect.gen(function*() {
          const { job, link, path, url } = yield* linked()
          const form = formOf(yield* get(url, path))!
          const answer = yield* postJson(url, path, { decision: "reject", reason: "too dear", form })
          assert.strictEqual(answer.status, 201, answer.body)
          const approval = JSON.parse(answer.body)
          assert.deepStrictEqual(
            [approval.jobId, approval.decision, approval.reason, approval.decidedBy],
            [job.id, "reject", "too dear", `link:${link.id}`]
          )
        }))

      it.effect("refuses a decision from another site, or without the page's form token: 403, nothing decided", () =>
        Effect.gen(function*() {
          const { job, key, path, url } = yield* linked()
          const form = formOf(yield* get(url, path))!
          for (
            const headers of [
              { origin: "https://attacker.example" },
              { origin: "http://127.0.0.1:1" },
              { "sec-fetch-site": "cross-site" },
              { origin: "not a url" }
            ]
          ) {
            const refused = yield* post(url, path, { decision: "approve", form }, headers)
            assert.strictEqual(refused.status, 403, JSON.stringify(headers))
            expectProtected(refused)
            expectError(yield* postJson(url, path, { decision: "approve", form }, headers), 403, "forbidden")
          }
          for (const bad of [undefined, "", "nonce", "nonce.signature", `${form}x`, `${form}.x`]) {
            const fields: Record<string, string> = { decision: "approve" }
            if (bad !== undefined) fields.form = bad
            assert.strictEqual((yield* post(url, path, fields)).status, 403, String(bad))
          }
          expectError(yield* postJson(url, path, { decision: "maybe", form }), 422, "invalid_request")
          expectError(
            yield* postJson(url, path, { decision: "approve", form, reason: "x".repeat(1001) }),
            422,
            "invalid_request"
          )
          assert.strictEqual((yield* post(url, path, { decision: "maybe", form })).status, 422)
          const unreadable = yield* send(url, {
            method: "POST",
            path: `${path}/decision`,
            headers: { "content-type": "text/plain" },
            body: "decision=approve"
          })
          assert.strictEqual(unreadable.status, 400)
          const still = yield* jobOf(url, key, job.id)
          assert.deepStrictEqual([still.status, still.proposal.status], ["awaiting_approval", "open"])
        }))

      it.effect("a replayed decision is refused (409 invalid_state): the first one stands", () =>
        Effect.gen(function*() {
          const { job, key, path, url } = yield* linked()
          const form = formOf(yield* get(url, path))!
          assert.strictEqual((yield* post(url, path, { decision: "approve", form })).status, 303)
          const replayed = yield* post(url, path, { decision: "approve", form })
          assert.strictEqual(replayed.status, 409)
          assert.include(replayed.body, "Nothing was decided")
          assert.include(replayed.body, "role=\"alert\"")
          expectError(yield* postJson(url, path, { decision: "reject", form }), 409, "invalid_state")
          const decisions = (yield* eventsOf(url, key, job.id)).filter((event) => event.type === "approval.recorded")
          assert.strictEqual(decisions.length, 1)
        }))

      it.effect("a token of another Job decides nothing of this one; its form token is not this page's", () =>
        Effect.gen(function*() {
          const a = yield* linked()
          const b = yield* linked()
          const formOfA = formOf(yield* get(a.url, a.path))!
          assert.strictEqual((yield* post(b.url, b.path, { decision: "approve", form: formOfA })).status, 403)
          const formOfB = formOf(yield* get(b.url, b.path))!
          assert.strictEqual((yield* post(b.url, b.path, { decision: "reject", form: formOfB })).status, 303)
          assert.strictEqual((yield* jobOf(a.url, a.key, a.job.id)).status, "awaiting_approval")
          // A's link reaches only A's Job, and B's only B's.
          const pageOfA = yield* get(a.url, a.path)
          assert.include(pageOfA.body, a.job.proposal.proposalHash)
          assert.notInclude(pageOfA.body, b.job.proposal.proposalHash)
        }))

      it.effect("a rejection re-plans; the new proposal needs a new link, the old page says so", () =>
        Effect.gen(function*() {
          const { job, key, path, url } = yield* linked()
          const form = formOf(yield* get(url, path))!
          assert.strictEqual((yield* post(url, path, { decision: "reject", reason: "too dear", form })).status, 303)
          const next = yield* settled(url, key, job.id)
          assert.strictEqual(next.status, "awaiting_approval")
          assert.notStrictEqual(next.proposal.proposalHash, job.proposal.proposalHash)
          const page = yield* get(url, path)
          assert.include(page.body, "You rejected this proposal.")
          assert.include(page.body, "a new proposal needs a new link")
          assert.notInclude(page.body, `name="decision"`)
          expectError(yield* postJson(url, path, { decision: "approve", form }), 409, "invalid_state")
        }))

      it.effect("a superseded link says so and decides nothing (409 revision_mismatch)", () =>
        Effect.gen(function*() {
          const { job, key, path, url } = yield* linked()
          const form = formOf(yield* get(url, path))!
          const revised = yield* call(url, {
            path: `/v1/jobs/${job.id}/constraints`,
            key,
            idempotencyKey: newIdempotencyKey(),
            body: { jobRevision: 1, constraints: [budget, { type: "note", text: "by the window" }] }
          })
          assert.strictEqual(revised.status, 200, revised.body)
          const page = yield* get(url, path)
          assert.strictEqual(page.status, 200)
          assert.include(page.body, "The request changed after this link was made")
          assert.include(page.body, "This link decides nothing.")
          assert.notInclude(page.body, `name="decision"`)
          const refused = yield* post(url, path, { decision: "approve", form })
          assert.strictEqual(refused.status, 409)
          assert.include(refused.body, "Nothing was decided")
          expectError(yield* postJson(url, path, { decision: "approve", form }), 409, "revision_mismatch")
        }))

      it.effect("an expired link says so and decides nothing", () =>
        Effect.gen(function*() {
          const { job, key, path, url } = yield* linked()
          const form = formOf(yield* get(url, path))!
          yield* TestTime.pass(job.proposal.document.expiresAt)
          const page = yield* get(url, path)
          assert.include(page.body, "This link has expired")
          assert.notInclude(page.body, `name="decision"`)
          const late = yield* postJson(url, path, { decision: "approve", form })
          assert.strictEqual(late.status, 409, late.body)
          // Expired, whether or not the sweep has planned again yet.
          assert.include(["proposal_expired", "proposal_mismatch", "invalid_state"], JSON.parse(late.body).error)
          assert.notInclude((yield* eventsOf(url, key, job.id)).map((event) => event.type), "approval.recorded")
        }))
    })

    it.effect("the token is never in the request log: routes under /approve/ are logged as templates", () =>
      Effect.gen(function*() {
        const { path, token, url } = yield* linked()
        yield* get(url, path)
        yield* get(url, `${path}/proposal`)
        yield* post(url, path, { decision: "approve", form: "x.y" })
        yield* Effect.sleep("50 millis")
        const lines = logged.filter((line) => line.includes("/approve/"))
        assert.isAbove(lines.length, 2)
        for (const line of logged) assert.notInclude(line, token)
        const routes = lines.map((line) => JSON.parse(line).route)
        assert.includeMembers(routes, ["/approve/{token}", "/approve/{token}/proposal", "/approve/{token}/decision"])
      }))
  })

describe("approval links over HTTP", () => {
  behaviour("in memory", servicesTest(undefined, {}, undefined, quickTiming))
  behaviour(`on ${TestDatabase.kind}`, servicesLive(undefined, {}, quickTiming))
})

layer(serverWith(MemoryWaitlist.layerMemory), { excludeTestServices: true })("with the preview off", (it) => {
  it.effect("no page is served: /approve/ answers as any unknown path", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      for (const path of [`/approve/${"A".repeat(43)}`, "/assets/approval.js"]) {
        const response = yield* get(url, path)
        assert.strictEqual(response.status, 404)
        assert.strictEqual(response.body, "")
      }
    }))
})
