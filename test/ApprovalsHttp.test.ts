import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import type { Layer } from "effect"
import { createHash } from "node:crypto"
import * as ApiKeys from "../src/services/access/ApiKeys.ts"
import { SandboxLedger } from "../src/services/providers/Sandbox.ts"
import { baseUrl } from "./support/Http.ts"
import type { RawResponse } from "./support/Http.ts"
import {
  budget,
  call,
  newIdempotencyKey,
  newKey,
  previewServerWith,
  quickTiming,
  servicesLive,
  servicesTest,
  settled
} from "./support/JobsHttp.ts"
import type { PreviewServices } from "./support/JobsHttp.ts"
import * as TestDatabase from "./support/TestDatabase.ts"
import * as TestTime from "./support/TestTime.ts"

/**
 * Proposals, approvals, execution, verification and recovery over HTTP, on both stores: every error
 * of the two new endpoints and its precedence, and every sandbox directive carried to the state the
 * design gives it, checked in the Job, its events and the sandbox's ledger.
 */

const clear = "Book a table for 4 at an Italian restaurant in Lisbon next Friday at 8pm"
const directive = (name: string) => ({ type: "note", text: `sandbox:${name}` })

const expectError = (response: RawResponse, status: number, code: string) => {
  assert.strictEqual(response.status, status, response.body)
  const body = JSON.parse(response.body)
  assert.deepStrictEqual(Object.keys(body), ["error", "message"])
  assert.strictEqual(body.error, code, response.body)
}

const accountOf = (key: string) =>
  Effect.flatMap(ApiKeys.ApiKeys, (keys) => keys.authenticate(Redacted.make(key))).pipe(
    Effect.map((principal) => Option.getOrThrow(principal))
  )

const create = (url: string, key: string, constraints: ReadonlyArray<unknown> = [budget], request = clear) =>
  Effect.gen(function*() {
    const created = yield* call(url, {
      path: "/v1/jobs",
      key,
      idempotencyKey: newIdempotencyKey(),
      body: { request, constraints }
    })
    assert.strictEqual(created.status, 201, created.body)
    return JSON.parse(created.body).id as string
  })

const decide = (
  url: string,
  key: string,
  id: string,
  body: unknown,
  idempotencyKey: string | undefined = newIdempotencyKey()
) => call(url, { path: `/v1/jobs/${id}/approvals`, key, idempotencyKey, body })

/** A Job with an open proposal, waiting for a decision. */
const proposed = (url: string, key: string, constraints: ReadonlyArray<unknown> = [budget]) =>
  Effect.gen(function*() {
    const id = yield* create(url, key, constraints)
    const job = yield* settled(url, key, id)
    assert.strictEqual(job.status, "awaiting_approval", JSON.stringify(job))
    return job
  })

const approve = (
  url: string,
  key: string,
  job: { id: string; jobRevision: number; proposal: { proposalHash: string } }
) =>
  Effect.gen(function*() {
    const response = yield* decide(url, key, job.id, {
      proposalHash: job.proposal.proposalHash,
      jobRevision: job.jobRevision,
      decision: "approve"
    })
    assert.strictEqual(response.status, 201, response.body)
    return JSON.parse(response.body)
  })

/** A Job proposed with the given sandbox directives and approved; answers where it then settled. */
const approvedWith = (...directives: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    const key = yield* newKey()
    const job = yield* proposed(url, key, [budget, ...directives.map(directive)])
    yield* approve(url, key, job)
    return { url, key, job }
  })

/** Waits until the Job has an event of this type (the runner works in the background). */
const untilEvent = (url: string, key: string, id: string, type: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1500; i++) {
      if (types(yield* eventsOf(url, key, id)).includes(type)) return
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`no ${type} for ${id} within 30 s`))
  })

/**
 * Until the sandbox has performed the Job's side effect, halfway through its slow call: the call is
 * under way. `execution.started` is recorded before the call is made, and a cancellation that lands in
 * between rightly makes no call at all, which leaves nothing to undo.
 */
const untilPerformed = (id: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 1500; i++) {
      if ((yield* ledgerOf(id)).some((entry) => entry.effects === 1)) return
      yield* Effect.sleep("20 millis")
    }
    return yield* Effect.die(new Error(`no side effect for ${id} within 30 s`))
  })

/**
 * A slow Job approved, then cancelled once `event` has happened (and `then`): the cancellation answers
 * `recovering`, the Job ends `cancelled` with no Outcome and its one side effect compensated. Answers its
 * events.
 */
const cancelledAfter = (
  event: string,
  then: (id: string) => Effect.Effect<void, unknown, SandboxLedger> = () => Effect.void
) =>
  Effect.gen(function*() {
    const { job, key, url } = yield* approvedWith("slow")
    yield* untilEvent(url, key, job.id, event)
    yield* then(job.id)
    const cancelling = yield* call(url, {
      path: `/v1/jobs/${job.id}/cancel`,
      key,
      idempotencyKey: newIdempotencyKey(),
      body: {}
    })
    assert.strictEqual(cancelling.status, 200, cancelling.body)
    assert.strictEqual(JSON.parse(cancelling.body).status, "recovering")
    const cancelled = yield* settled(url, key, job.id)
    assert.strictEqual(cancelled.status, "cancelled")
    assert.isNull(cancelled.outcome)
    const ledger = yield* ledgerOf(job.id)
    assert.deepStrictEqual(ledger.map((entry) => [entry.effects, entry.state]), [[1, "compensated"]])
    const seen = types(yield* eventsOf(url, key, job.id))
    assert.include(seen, "job.cancelled")
    return seen
  })

const eventsOf = (url: string, key: string, id: string) =>
  Effect.map(
    call(url, { path: `/v1/jobs/${id}/events?limit=1000`, key }),
    (response) => JSON.parse(response.body).data as ReadonlyArray<{ type: string; data: Record<string, unknown> }>
  )

const types = (events: ReadonlyArray<{ type: string; data: Record<string, unknown> }>) =>
  events.map((event) => event.type === "recovery.step" ? `recovery.step:${String(event.data.action)}` : event.type)

const ledgerOf = (id: string) => Effect.flatMap(SandboxLedger, (ledger) => ledger.entries(id))

/** Each effect that stands, per proposal: never more than one. */
const standing = (entries: ReadonlyArray<{ proposalHash: string; effects: number; state: string }>) => {
  const counts = new Map<string, number>()
  for (const entry of entries) {
    if (entry.effects > 0 && entry.state !== "compensated") {
      counts.set(entry.proposalHash, (counts.get(entry.proposalHash) ?? 0) + 1)
    }
  }
  return counts
}

const behaviour = <E>(name: string, services: Layer.Layer<PreviewServices | TestTime.TestTime, E>) =>
  layer(previewServerWith(services), { timeout: "120 seconds", excludeTestServices: true })(name, (it) => {
    describe("GET /v1/jobs/{id}/proposals/{hash}", () => {
      it.effect("serves the exact bytes that were hashed, with the hash as ETag, to jobs:read or approvals:write", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const job = yield* proposed(url, key)
          const hash = job.proposal.proposalHash
          assert.match(hash, /^sha256:[0-9a-f]{64}$/)
          const path = `/v1/jobs/${job.id}/proposals/${hash}`
          const response = yield* call(url, { path, key })
          assert.strictEqual(response.status, 200, response.body)
          assert.strictEqual(response.headers["content-type"], "application/json")
          assert.strictEqual(response.headers.etag, `"${hash}"`)
          assert.strictEqual(`sha256:${createHash("sha256").update(response.body, "utf8").digest("hex")}`, hash)
          assert.deepStrictEqual(JSON.parse(response.body), job.proposal.document)
          assert.strictEqual(job.proposal.document.jobId, job.id)
          assert.isTrue(Number(job.proposal.document.spend.amount) <= 200)
          const notModified = yield* call(url, { path, key, headers: { "if-none-match": `"${hash}"` } })
          assert.strictEqual(notModified.status, 304)

          // Another account's key: 404, never 403.
          const stranger = yield* newKey(["jobs:read"])
          expectError(yield* call(url, { path, key: stranger }), 404, "not_found")
          expectError(
            yield* call(url, { path: `/v1/jobs/${job.id}/proposals/sha256:${"0".repeat(64)}`, key }),
            404,
            "not_found"
          )
          expectError(yield* call(url, { path: `/v1/jobs/job_nothing/proposals/${hash}`, key }), 404, "not_found")
          expectError(yield* call(url, { path }), 401, "unauthorized")
        }))

      it.effect("needs jobs:read or approvals:write", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const account = `acct-${Math.random().toString(36).slice(2)}`
          const key = yield* newKey(["jobs:read", "jobs:write"], account)
          const job = yield* proposed(url, key)
          const path = `/v1/jobs/${job.id}/proposals/${job.proposal.proposalHash}`
          const approver = yield* newKey(["approvals:write"], account)
          assert.strictEqual((yield* call(url, { path, key: approver })).status, 200)
          const writer = yield* newKey(["jobs:write"], account)
          expectError(yield* call(url, { path, key: writer }), 403, "forbidden")
        }))
    })

    describe("POST /v1/jobs/{id}/approvals", () => {
      it.effect("records a decision once, with the key that made it, and replays it by its Idempotency-Key", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const job = yield* proposed(url, key)
          const idempotencyKey = newIdempotencyKey()
          const body = { proposalHash: job.proposal.proposalHash, jobRevision: job.jobRevision, decision: "approve" }
          const first = yield* decide(url, key, job.id, body, idempotencyKey)
          assert.strictEqual(first.status, 201, first.body)
          const approval = JSON.parse(first.body)
          assert.deepStrictEqual(Object.keys(approval), [
            "id",
            "jobId",
            "jobRevision",
            "proposalHash",
            "decision",
            "reason",
            "decidedBy",
            "createdAt"
          ])
          assert.strictEqual(approval.decidedBy, (yield* accountOf(key)).keyId)
          assert.isNull(approval.reason)
          const replay = yield* decide(url, key, job.id, body, idempotencyKey)
          assert.strictEqual(replay.status, 201)
          assert.strictEqual(replay.body, first.body)
          assert.strictEqual(replay.headers["idempotent-replayed"], "true")
          // A second decision on the same proposal: the first stands.
          expectError(yield* decide(url, key, job.id, { ...body, decision: "reject" }), 409, "invalid_state")
          const done = yield* settled(url, key, job.id)
          assert.strictEqual(done.status, "completed", JSON.stringify(done))
        }))

      it.effect("answers every error in the order of docs/API.md, which error wins", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const account = `acct-${Math.random().toString(36).slice(2)}`
          const key = yield* newKey(["jobs:read", "jobs:write", "approvals:write"], account)
          const job = yield* proposed(url, key)
          const good = { proposalHash: job.proposal.proposalHash, jobRevision: job.jobRevision, decision: "approve" }
          const path = `/v1/jobs/${job.id}/approvals`

          expectError(yield* call(url, { path, idempotencyKey: newIdempotencyKey(), body: good }), 401, "unauthorized")
          const writer = yield* newKey(["jobs:read", "jobs:write"], account)
          expectError(yield* decide(url, writer, job.id, good), 403, "forbidden")
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
            const bad of [
              { ...good, decision: "maybe" },
              { ...good, proposalHash: "sha256:abc" },
              { ...good, reason: "x".repeat(1001) },
              { ...good, extra: true },
              { decision: "approve" }
            ]
          ) {
            expectError(yield* decide(url, key, job.id, bad), 422, "invalid_request")
            // invalid_request wins over 404.
            expectError(yield* decide(url, key, "job_unknown", bad), 422, "invalid_request")
          }
          expectError(yield* decide(url, key, "job_unknown", good), 404, "not_found")
          expectError(yield* decide(url, key, job.id, { ...good, jobRevision: 2 }), 409, "revision_mismatch")
          expectError(
            yield* decide(url, key, job.id, { ...good, proposalHash: `sha256:${"a".repeat(64)}` }),
            409,
            "proposal_mismatch"
          )
          // Nothing of this changed the Job.
          const still = JSON.parse((yield* call(url, { path: `/v1/jobs/${job.id}`, key })).body)
          assert.strictEqual(still.status, "awaiting_approval")
          assert.strictEqual(still.proposal.status, "open")

          const waiting = yield* create(url, key, [budget], "Book a table for 4 at an Italian restaurant in Lisbon")
          const asked = yield* settled(url, key, waiting)
          assert.strictEqual(asked.status, "awaiting_input")
          expectError(yield* decide(url, key, waiting, { ...good, jobRevision: 1 }), 409, "invalid_state")
        }))

      it.effect("rejecting re-plans without the offer, and with none left asks the User", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          let job = yield* proposed(url, key)
          const offers = new Set<string>()
          for (let i = 0; i < 3 && job.status === "awaiting_approval"; i++) {
            offers.add(job.proposal.document.offer.id)
            const rejected = yield* decide(url, key, job.id, {
              proposalHash: job.proposal.proposalHash,
              jobRevision: job.jobRevision,
              decision: "reject",
              reason: "too dear"
            })
            assert.strictEqual(rejected.status, 201, rejected.body)
            assert.strictEqual(JSON.parse(rejected.body).reason, "too dear")
            job = yield* settled(url, key, job.id)
          }
          assert.strictEqual(offers.size, 3)
          assert.strictEqual(job.status, "awaiting_input")
          assert.strictEqual(job.jobRevision, 1)
          assert.deepStrictEqual(job.questions.map((q: { id: string }) => q.id), ["q_offers"])
          const seen = types(yield* eventsOf(url, key, job.id))
          assert.strictEqual(seen.filter((type) => type === "proposal.superseded").length, 3)
          assert.include(seen, "recovery.step:ask")
          assert.deepStrictEqual(yield* ledgerOf(job.id), [])
        }))

      it.effect("a proposal not decided in time expires, and the Job plans again", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const job = yield* proposed(url, key)
          yield* TestTime.pass(job.proposal.document.expiresAt)
          // Expired, whether or not the sweep has run yet: a late decision is never taken.
          const late = yield* decide(url, key, job.id, {
            proposalHash: job.proposal.proposalHash,
            jobRevision: job.jobRevision,
            decision: "approve"
          })
          assert.strictEqual(late.status, 409, late.body)
          assert.include(["proposal_expired", "proposal_mismatch", "invalid_state"], JSON.parse(late.body).error)
          // The runner's sweep supersedes it and the Job plans again.
          yield* untilEvent(url, key, job.id, "proposal.superseded")
          const next = yield* settled(url, key, job.id)
          assert.notStrictEqual(next.proposal.proposalHash, job.proposal.proposalHash)
          const superseded = (yield* eventsOf(url, key, job.id)).find((event) => event.type === "proposal.superseded")
          assert.deepStrictEqual(
            [superseded?.data.proposalHash, superseded?.data.reason],
            [job.proposal.proposalHash, "expired"]
          )
          // The first proposal is still served.
          const old = yield* call(url, { path: `/v1/jobs/${job.id}/proposals/${job.proposal.proposalHash}`, key })
          assert.strictEqual(old.status, 200)
        }))
    })

    describe("the sandbox's directives, end to end", () => {
      it.effect("none: one execution, verified, an Outcome", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const job = yield* proposed(url, key)
          yield* approve(url, key, job)
          const done = yield* settled(url, key, job.id)
          assert.strictEqual(done.status, "completed")
          assert.strictEqual(done.proposal.status, "approved")
          assert.deepStrictEqual(Object.keys(done.outcome), [
            "provider",
            "reference",
            "spent",
            "verifiedAt",
            "evidence"
          ])
          assert.strictEqual(done.outcome.provider, "sandbox")
          assert.deepStrictEqual(done.outcome.spent, job.proposal.document.spend)
          assert.deepStrictEqual(types(yield* eventsOf(url, key, job.id)), [
            "job.created",
            "job.interpreted",
            "proposal.presented",
            "approval.recorded",
            "execution.started",
            "execution.succeeded",
            "verification.succeeded",
            "job.completed"
          ])
          const ledger = yield* ledgerOf(job.id)
          assert.strictEqual(ledger.length, 1)
          assert.deepStrictEqual([ledger[0]!.effects, ledger[0]!.state], [1, "succeeded"])
          assert.strictEqual(ledger[0]!.key, `${job.id}:${job.proposal.proposalHash}:1`)
        }))

      it.effect("transient-once: retried with the same key, one side effect", () =>
        Effect.gen(function*() {
          const { job, key, url } = yield* approvedWith("transient-once")
          assert.strictEqual((yield* settled(url, key, job.id)).status, "completed")
          const seen = types(yield* eventsOf(url, key, job.id))
          assert.includeMembers(seen, ["execution.failed", "recovery.step:retry", "execution.succeeded"])
          const ledger = yield* ledgerOf(job.id)
          assert.strictEqual(ledger.length, 1)
          assert.strictEqual(ledger[0]!.effects, 1)
          assert.isAtLeast(ledger[0]!.calls, 2)
        }))

      it.effect("timeout-once: the lost answer is found by inspecting the key, not by executing again", () =>
        Effect.gen(function*() {
          const { job, key, url } = yield* approvedWith("timeout-once")
          assert.strictEqual((yield* settled(url, key, job.id)).status, "completed")
          const seen = types(yield* eventsOf(url, key, job.id))
          assert.strictEqual(seen.filter((type) => type === "execution.started").length, 1)
          const ledger = yield* ledgerOf(job.id)
          assert.deepStrictEqual(ledger.map((entry) => [entry.effects, entry.state]), [[1, "succeeded"]])
        }))

      it.effect("permanent: re-plans without the offer; the next proposal needs its own approval", () =>
        Effect.gen(function*() {
          const { job, key, url } = yield* approvedWith("permanent")
          const next = yield* settled(url, key, job.id)
          assert.strictEqual(next.status, "awaiting_approval")
          assert.strictEqual(next.jobRevision, 1)
          assert.notStrictEqual(next.proposal.document.offer.id, job.proposal.document.offer.id)
          assert.includeMembers(types(yield* eventsOf(url, key, job.id)), ["execution.failed", "recovery.step:replan"])
          yield* approve(url, key, next)
          assert.strictEqual((yield* settled(url, key, job.id)).status, "completed")
          const ledger = yield* ledgerOf(job.id)
          assert.deepStrictEqual(ledger.map((entry) => [entry.effects, entry.state]), [[0, "failed"], [1, "succeeded"]])
        }))

      it.effect("verify-mismatch: the side effect is undone, then a new proposal", () =>
        Effect.gen(function*() {
          const { job, key, url } = yield* approvedWith("verify-mismatch")
          const next = yield* settled(url, key, job.id)
          assert.strictEqual(next.status, "awaiting_approval", JSON.stringify(next))
          assert.isNull(next.outcome)
          assert.includeMembers(types(yield* eventsOf(url, key, job.id)), [
            "verification.failed",
            "recovery.step:compensate",
            "recovery.step:replan"
          ])
          yield* approve(url, key, next)
          assert.strictEqual((yield* settled(url, key, job.id)).status, "completed")
          const ledger = yield* ledgerOf(job.id)
          assert.deepStrictEqual(ledger.map((entry) => entry.state), ["compensated", "succeeded"])
          assert.isTrue(Array.from(standing(ledger).values()).every((n) => n <= 1))
        }))

      it.effect("cancel-fails after a failed verification: failed, naming what could not be undone", () =>
        Effect.gen(function*() {
          const { job, key, url } = yield* approvedWith("verify-mismatch", "cancel-fails")
          const failed = yield* settled(url, key, job.id)
          assert.strictEqual(failed.status, "failed")
          const events = yield* eventsOf(url, key, job.id)
          // Every attempt to undo is an event: five `compensate`s that failed, a `retry` between each two.
          const recovery = events.slice(types(events).indexOf("verification.failed") + 1)
          assert.deepStrictEqual(types(recovery), [
            ...Array.from({ length: 4 }, () => ["recovery.step:compensate", "recovery.step:retry"]).flat(),
            "recovery.step:compensate",
            "recovery.step:fail",
            "job.failed"
          ])
          const attempts = recovery.filter((event) => event.data.action === "compensate")
          assert.deepStrictEqual(attempts.map((event) => event.data.attempt), [1, 2, 3, 4, 5])
          for (const attempt of attempts) {
            assert.deepInclude(attempt.data, { undone: false, error: "sandbox:cancel-fails: cannot cancel" })
          }
          const [entry] = yield* ledgerOf(job.id)
          assert.deepInclude(recovery.at(-2)!.data, { key: entry!.key, attempts: 5 })
          const reason = recovery.at(-1)!.data.reason as string
          assert.include(reason, entry!.key)
          assert.include(reason, "after 5 attempts")
          assert.strictEqual(entry!.state, "succeeded")
          // The execute, the verification's inspection, and an inspection and a cancel for each attempt: no call unseen.
          assert.strictEqual(entry!.calls, 2 + 2 * attempts.length)
        }))

      it.effect("no-offers: asks the User", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const id = yield* create(url, key, [budget, directive("no-offers")])
          const job = yield* settled(url, key, id)
          assert.strictEqual(job.status, "awaiting_input")
          assert.deepStrictEqual(job.questions.map((q: { id: string }) => q.id), ["q_offers"])
          assert.isNull(job.proposal)
        }))

      it.effect("free: presented for provenance and executed at once, with no approval", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const id = yield* create(url, key, [budget, directive("free")])
          const job = yield* settled(url, key, id)
          assert.strictEqual(job.status, "completed")
          assert.strictEqual(job.proposal.document.spend.amount, "0.00")
          const seen = types(yield* eventsOf(url, key, id))
          assert.notInclude(seen, "approval.recorded")
          assert.includeMembers(seen, ["proposal.presented", "execution.started", "job.completed"])
        }))

      it.effect("slow: a cancellation during execution lets the call finish, undoes it, then cancels", () =>
        Effect.gen(function*() {
          const seen = yield* cancelledAfter("execution.started", untilPerformed)
          assert.includeMembers(seen, ["work.invalidated", "execution.succeeded", "recovery.step:compensate"])
        }))

      it.effect("slow: a cancellation during verification lets the inspection finish, undoes the effect, cancels", () =>
        Effect.gen(function*() {
          const seen = yield* cancelledAfter("execution.succeeded")
          assert.includeMembers(seen, ["work.invalidated", "recovery.step:compensate"])
          assert.notInclude(seen, "verification.succeeded")
          assert.notInclude(seen, "job.completed")
        }))

      it.effect("slow: a new revision during verification undoes the old effect, then the new revision goes on", () =>
        Effect.gen(function*() {
          const { job, key, url } = yield* approvedWith("slow")
          yield* untilEvent(url, key, job.id, "execution.succeeded")
          const revised = yield* call(url, {
            path: `/v1/jobs/${job.id}/constraints`,
            key,
            idempotencyKey: newIdempotencyKey(),
            body: { jobRevision: 1, constraints: [budget] }
          })
          assert.strictEqual(revised.status, 200, revised.body)
          yield* untilEvent(url, key, job.id, "recovery.step:compensate")
          const next = yield* settled(url, key, job.id)
          assert.deepStrictEqual([next.jobRevision, next.status, next.outcome], [2, "awaiting_approval", null])
          assert.deepStrictEqual((yield* ledgerOf(job.id)).map((entry) => entry.state), ["compensated"])
          assert.notInclude(types(yield* eventsOf(url, key, job.id)), "verification.succeeded")
        }))

      it.effect("a new revision during execution undoes the old one's side effect before it executes anything", () =>
        Effect.gen(function*() {
          const { job, key, url } = yield* approvedWith("slow")
          yield* untilEvent(url, key, job.id, "execution.started")
          const revised = yield* call(url, {
            path: `/v1/jobs/${job.id}/constraints`,
            key,
            idempotencyKey: newIdempotencyKey(),
            body: { jobRevision: 1, constraints: [budget] }
          })
          assert.strictEqual(revised.status, 200, revised.body)
          assert.strictEqual(JSON.parse(revised.body).jobRevision, 2)
          const next = yield* settled(url, key, job.id)
          assert.strictEqual(next.status, "awaiting_approval")
          assert.strictEqual(next.jobRevision, 2)
          // The call in flight finishes (2 s), then its side effect is undone, and that is recorded.
          yield* untilEvent(url, key, job.id, "recovery.step:compensate")
          const ledger = yield* ledgerOf(job.id)
          assert.deepStrictEqual(ledger.map((entry) => entry.state), ["compensated"])
          yield* approve(url, key, next)
          const done = yield* settled(url, key, job.id)
          assert.strictEqual(done.status, "completed")
          assert.strictEqual(done.jobRevision, 2)
          const all = yield* ledgerOf(job.id)
          assert.deepStrictEqual(all.map((entry) => entry.state), ["compensated", "succeeded"])
        }))
    })
  })

describe("proposals and approvals over HTTP", () => {
  behaviour("in memory", servicesTest(undefined, {}, undefined, quickTiming))
  behaviour(`on ${TestDatabase.kind}`, servicesLive(undefined, {}, quickTiming))
})
