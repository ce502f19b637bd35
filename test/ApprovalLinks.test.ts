import { assert, describe, layer } from "@effect/vitest"
import type { Layer } from "effect"
import { Effect, Exit, Option, Redacted } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { wire } from "../src/http/WireErrors.ts"
import type { AccountId, ApiKeyId, Principal } from "../src/schema/ApiKey.ts"
import { tokenPattern } from "../src/schema/ApprovalLink.ts"
import type { ProposalHash } from "../src/schema/Proposal.ts"
import type { Interpretation } from "../src/services/interpreter/Interpreter.ts"
import * as ApprovalLinks from "../src/services/jobs/ApprovalLinks.ts"
import * as Jobs from "../src/services/jobs/Jobs.ts"
import type { JobStore } from "../src/services/jobs/JobStore.ts"
import type { JobFailure } from "../src/services/jobs/rules/JobErrors.ts"
import type { Steps } from "../src/services/jobs/runner/Steps.ts"
import { publishedEvents } from "./support/JobEvents.ts"
import { advance, recordInterpretation, stores, storesLive } from "./support/JobSteps.ts"
import * as TestDatabase from "./support/TestDatabase.ts"
import * as TestTime from "./support/TestTime.ts"

/**
 * One behaviour of approval links (docs/API.md, "Approval links"), held by the in-memory and the SQL
 * layers alike: created under the checks of a decision, a token kept only as a hash, one decision per
 * link under the checks of any decision, recorded as `link:{id}`. Interpretation and planning are
 * driven by hand (no runner): an interpretation through the store, planning as the runner's step.
 */

let counter = 0
const account = () => `acct_links_${process.pid}_${++counter}` as AccountId
const principalOf = (accountId: AccountId): Principal => ({
  accountId,
  keyId: "key_links" as ApiKeyId,
  scopes: new Set(["approvals:write"] as const)
})

const understood: Interpretation = {
  _tag: "Understood",
  objective: { kind: "reservation", summary: "A table for 4", evidence: [{ text: "table", start: 2, end: 7 }] },
  constraints: [{ type: "quantity", count: 4, unit: "people", evidence: [{ text: "for 4", start: 8, end: 13 }] }]
}
const budget = { type: "budget", max: { amount: "200.00", currency: "EUR" } } as const

const failure = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(
    Effect.exit(effect),
    (exit) => Exit.isFailure(exit) ? Option.getOrUndefined(Exit.findErrorOption(exit)) : undefined
  )

/** The contract's code of a refusal, as the API sends it. */
const code = (error: unknown) =>
  error === undefined ? undefined : Effect.runSync(Effect.flip(wire(Effect.fail(error as JobFailure)))).error

/** A Job interpreted by hand and planned by the runner's step: its proposal is open. */
const planned = Effect.gen(function*() {
  const jobs = yield* Jobs.Jobs
  const owner = account()
  const created = yield* jobs.create(owner, { request: "A table for 4", constraints: [budget] })
  const ref = { accountId: owner, jobId: created.id, revision: 1, run: 0 }
  yield* recordInterpretation(ref, understood)
  yield* advance(ref)
  const job = yield* jobs.get(owner, created.id)
  assert.strictEqual(job.status, "awaiting_approval")
  return { owner, job, hash: job.proposal!.proposalHash, principal: principalOf(owner) }
})

const behaviour = <Extra = never>(
  name: string,
  layerUnderTest: Layer.Layer<
    Jobs.Jobs | JobStore | Steps | ApprovalLinks.ApprovalLinks | TestTime.TestTime | Extra,
    unknown
  >,
  /** What the store holds of a link, as text (the SQL layer's row). */
  stored?: (token: string) => Effect.Effect<string, unknown, Extra>
) =>
  layer(layerUnderTest, { timeout: "60 seconds", excludeTestServices: true })(name, (it) => {
    it.effect("creates a link under the checks of a decision, and records it in the Job's history", () =>
      Effect.gen(function*() {
        const links = yield* ApprovalLinks.ApprovalLinks
        const { hash, job, owner, principal } = yield* planned
        const input = { proposalHash: hash, jobRevision: 1 }
        assert.strictEqual(
          code(yield* failure(links.create(principalOf(account()), job.id, input))),
          "not_found"
        )
        assert.strictEqual(
          code(yield* failure(links.create(principal, job.id, { ...input, jobRevision: 2 }))),
          "revision_mismatch"
        )
        assert.strictEqual(
          code(
            yield* failure(
              links.create(principal, job.id, { ...input, proposalHash: `sha256:${"1".repeat(64)}` as ProposalHash })
            )
          ),
          "proposal_mismatch"
        )
        const { link, token } = yield* links.create(principal, job.id, input)
        assert.match(Redacted.value(token), tokenPattern)
        assert.match(link.id, /^apl_[0-9a-f]{24}$/)
        assert.deepStrictEqual(
          [link.accountId, link.jobId, link.jobRevision, link.proposalHash, link.expiresAt, link.used],
          [owner, job.id, 1, hash, job.proposal!.document.expiresAt, null]
        )
        const events = yield* publishedEvents(owner, job.id)
        const created = events.filter((event) => event.type === "approval_link.created")
        assert.deepStrictEqual(created.map((event) => event.data), [{ linkId: link.id, proposalHash: hash }])
        // A link changes nothing else of the Job.
        const after = yield* (yield* Jobs.Jobs).get(owner, job.id)
        assert.deepStrictEqual({ ...after, updatedAt: job.updatedAt }, job)

        assert.deepStrictEqual(yield* links.resolve(Redacted.value(token)), Option.some(link))
        assert.isTrue(Option.isNone(yield* links.resolve("A".repeat(43))))
        assert.isTrue(Option.isNone(yield* links.resolve(`${Redacted.value(token)}x`)))
        assert.isTrue(Option.isNone(yield* links.resolve("")))
        if (stored !== undefined) {
          const rows = yield* stored(Redacted.value(token))
          assert.include(rows, ApprovalLinks.hashOfToken(Redacted.value(token)))
          assert.notInclude(rows, Redacted.value(token))
        }
      }))

    it.effect("decides once, as link:{id}, under the checks of any decision", () =>
      Effect.gen(function*() {
        const links = yield* ApprovalLinks.ApprovalLinks
        const { hash, job, owner, principal } = yield* planned
        const { link, token } = yield* links.create(principal, job.id, { proposalHash: hash, jobRevision: 1 })
        const second = yield* links.create(principal, job.id, { proposalHash: hash, jobRevision: 1 })
        assert.notStrictEqual(Redacted.value(second.token), Redacted.value(token))
        assert.strictEqual(code(yield* failure(links.decide("B".repeat(43), { decision: "approve" }))), "not_found")

        const approval = yield* links.decide(Redacted.value(token), { decision: "approve", reason: "fine" })
        assert.deepStrictEqual(
          [approval.jobId, approval.jobRevision, approval.proposalHash, approval.decision, approval.reason],
          [job.id, 1, hash, "approve", "fine"]
        )
        assert.strictEqual(approval.decidedBy, `link:${link.id}`)
        const recorded = (yield* publishedEvents(owner, job.id)).find((event) => event.type === "approval.recorded")
        assert.strictEqual(recorded?.data.decidedBy, `link:${link.id}`)
        assert.strictEqual(recorded?.data.approvalId, approval.id)
        assert.strictEqual((yield* (yield* Jobs.Jobs).get(owner, job.id)).status, "executing")
        const used = yield* links.resolve(Redacted.value(token))
        assert.deepStrictEqual(Option.getOrThrow(used).used, {
          approvalId: approval.id,
          decision: "approve",
          at: approval.createdAt
        })

        // Good for one decision: again, or through another link of the same proposal, or by key.
        assert.strictEqual(
          code(yield* failure(links.decide(Redacted.value(token), { decision: "reject" }))),
          "invalid_state"
        )
        assert.strictEqual(
          code(yield* failure(links.decide(Redacted.value(second.token), { decision: "reject" }))),
          "invalid_state"
        )
        assert.strictEqual(
          code(yield* failure(links.create(principal, job.id, { proposalHash: hash, jobRevision: 1 }))),
          "invalid_state"
        )
      }))

    it.effect("decides once when decisions race on one link", () =>
      Effect.gen(function*() {
        const links = yield* ApprovalLinks.ApprovalLinks
        const { hash, job, principal } = yield* planned
        const { token } = yield* links.create(principal, job.id, { proposalHash: hash, jobRevision: 1 })
        const results = yield* Effect.forEach(
          ["approve", "reject", "approve", "reject"] as const,
          (decision) => Effect.exit(links.decide(Redacted.value(token), { decision })),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter(Exit.isSuccess).length, 1)
        for (const exit of results.filter(Exit.isFailure)) {
          assert.strictEqual(code(Option.getOrUndefined(Exit.findErrorOption(exit))), "invalid_state")
        }
      }))

    it.effect("a rejection through a link re-plans; the next proposal needs a link of its own", () =>
      Effect.gen(function*() {
        const links = yield* ApprovalLinks.ApprovalLinks
        const jobs = yield* Jobs.Jobs
        const { hash, job, owner, principal } = yield* planned
        const { token } = yield* links.create(principal, job.id, { proposalHash: hash, jobRevision: 1 })
        const rejected = yield* links.decide(Redacted.value(token), { decision: "reject" })
        assert.isNull(rejected.reason)
        yield* advance({ accountId: owner, jobId: job.id, revision: 1, run: 1 })
        const next = yield* jobs.get(owner, job.id)
        assert.strictEqual(next.status, "awaiting_approval")
        assert.notStrictEqual(next.proposal!.proposalHash, hash)
        assert.strictEqual(
          code(yield* failure(links.decide(Redacted.value(token), { decision: "approve" }))),
          "invalid_state"
        )
        const fresh = yield* links.create(principal, job.id, {
          proposalHash: next.proposal!.proposalHash,
          jobRevision: 1
        })
        assert.strictEqual(fresh.link.proposalHash, next.proposal!.proposalHash)
      }))

    it.effect("an expired link, or one of a revision since changed, decides nothing", () =>
      Effect.gen(function*() {
        const links = yield* ApprovalLinks.ApprovalLinks
        const jobs = yield* Jobs.Jobs
        const expiring = yield* planned
        const { token } = yield* links.create(expiring.principal, expiring.job.id, {
          proposalHash: expiring.hash,
          jobRevision: 1
        })
        const revised = yield* planned
        const stale = yield* links.create(revised.principal, revised.job.id, {
          proposalHash: revised.hash,
          jobRevision: 1
        })
        yield* jobs.changeConstraints(revised.owner, revised.job.id, { jobRevision: 1, constraints: [] })
        assert.strictEqual(
          code(yield* failure(links.decide(Redacted.value(stale.token), { decision: "approve" }))),
          "revision_mismatch"
        )
        yield* TestTime.pass(expiring.job.proposal!.document.expiresAt)
        assert.strictEqual(
          code(yield* failure(links.decide(Redacted.value(token), { decision: "approve" }))),
          "proposal_expired"
        )
        assert.strictEqual(
          code(
            yield* failure(links.create(expiring.principal, expiring.job.id, {
              proposalHash: expiring.hash,
              jobRevision: 1
            }))
          ),
          "proposal_expired"
        )
        assert.isNull(Option.getOrThrow(yield* links.resolve(Redacted.value(token))).used)
      }))
  })

describe("approval links", () => {
  behaviour("in memory", stores())
  behaviour(
    `on ${TestDatabase.kind}`,
    storesLive(),
    (token) =>
      Effect.flatMap(
        SqlClient.SqlClient,
        (client) =>
          client<Record<string, unknown>>`SELECT * FROM approval_links WHERE token_hash = ${
            ApprovalLinks.hashOfToken(token)
          }`
      ).pipe(Effect.map((rows) => {
        assert.strictEqual(rows.length, 1)
        return JSON.stringify(rows)
      }))
  )
})
