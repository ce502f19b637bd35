import { assert, describe, layer } from "@effect/vitest"
import type { Layer } from "effect"
import { Effect, Exit, Option } from "effect"
import pg from "pg"
import { wire } from "../src/http/WireErrors.ts"
import type { AccountId, ApiKeyId } from "../src/schema/ApiKey.ts"
import { Unavailable } from "../src/schema/Errors.ts"
import type { JobId } from "../src/schema/Job.ts"
import type { ProposalHash } from "../src/schema/Proposal.ts"
import * as Idempotency from "../src/services/access/Idempotency.ts"
import type { Interpretation } from "../src/services/interpreter/Interpreter.ts"
import * as Jobs from "../src/services/jobs/Jobs.ts"
import * as JobStore from "../src/services/jobs/JobStore.ts"
import * as Proposals from "../src/services/jobs/Proposals.ts"
import type { JobFailure } from "../src/services/jobs/rules/JobErrors.ts"
import { RejectedInput, StaleRevision, UnknownJob, WrongState } from "../src/services/jobs/rules/JobErrors.ts"
import * as Proposal from "../src/services/jobs/rules/Proposal.ts"
import * as RunQueue from "../src/services/jobs/runner/RunQueue.ts"
import type * as Steps from "../src/services/jobs/runner/Steps.ts"
import { Providers } from "../src/services/providers/Provider.ts"
import * as Sandbox from "../src/services/providers/Sandbox.ts"
import { publishedEvents, publishedPage } from "./support/JobEvents.ts"
import { advance, claim, interpretationInput, recordInterpretation, stores, storesLive } from "./support/JobSteps.ts"
import * as TestDatabase from "./support/TestDatabase.ts"
import * as TestTime from "./support/TestTime.ts"

/**
 * One behaviour of the Job API's stores (Jobs and their decisions, Proposals, the sandbox, Idempotency), held by the
 * in-memory and the PostgreSQL compositions alike. The runner's work is driven by hand here (no runner): an
 * interpretation and a claim through the store, planning as the runner's step, so every step is the test's.
 */

/**
 * The stores keep the service's own TTLs (`stores()`, `storesLive()`), under which nothing lapses however slow the
 * machine: a test of a proposal's expiry moves the time on (`TestTime`). Idempotency's lapses are measured by the
 * database's clock, so their tests have short TTLs of their own (these), and wait them out.
 */
const shortLived = { IDEMPOTENCY_CLAIM_TTL: "1 second", IDEMPOTENCY_RETENTION: "10 seconds" }

let counter = 0
const account = () => `acct_test_${process.pid}_${++counter}` as AccountId

/** What the scripted interpretations read from "A table for 4". */
const tableFor4 = {
  objective: {
    kind: "reservation",
    summary: "A table for 4",
    evidence: [{ text: "table", start: 2, end: 7 }]
  },
  constraints: [{ type: "quantity", count: 4, unit: "people", evidence: [{ text: "for 4", start: 8, end: 13 }] }]
} as const

const needsDate: Interpretation = {
  _tag: "NeedsInput",
  ...tableFor4,
  questions: [
    { id: "q_date", text: "For when?", about: "date" },
    { id: "q_time", text: "At what time?", about: "time" }
  ]
}
const understood: Interpretation = { _tag: "Understood", ...tableFor4 }
const budget = { type: "budget", max: { amount: "200.00", currency: "EUR" } } as const
const place = { type: "location", place: "Lisbon" } as const

const failure = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(
    Effect.exit(effect),
    (exit) => Exit.isFailure(exit) ? Option.getOrUndefined(Exit.findErrorOption(exit)) : undefined
  )

/** The contract's code of a service's refusal, as the API sends it. */
const code = (error: unknown) =>
  error instanceof Idempotency.KeyInUse
    ? "idempotency_key_in_use"
    : error instanceof Idempotency.KeyReused
    ? "idempotency_key_reused"
    : Effect.runSync(Effect.flip(wire(Effect.fail(error as JobFailure)))).error

const behaviour = (
  name: string,
  layerUnderTest: Layer.Layer<
    | Jobs.Jobs
    | Proposals.Proposals
    | JobStore.JobStore
    | Steps.Steps
    | Providers
    | Sandbox.SandboxLedger
    | Idempotency.Idempotency
    | RunQueue.RunQueue
    | TestTime.TestTime,
    unknown
  >
) =>
  layer(layerUnderTest, { timeout: "60 seconds", excludeTestServices: true })(name, (it) => {
    describe("Jobs", () => {
      it.effect("creates a Job interpreting at revision 1, with its event, its snapshot and a signal", () =>
        Effect.gen(function*() {
          const jobs = yield* Jobs.Jobs
          const work = yield* RunQueue.RunQueue
          const owner = account()
          const job = yield* jobs.create(owner, { request: "Dinner for 4\u0000 in Lisbon 😀", constraints: [budget] })
          assert.strictEqual(job.status, "interpreting")
          assert.strictEqual(job.jobRevision, 1)
          assert.strictEqual(job.request, "Dinner for 4\u0000 in Lisbon 😀")
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
          assert.strictEqual(job.constraints[0]!.source, "caller")
          assert.match(job.constraints[0]!.id, /^con_/)
          assert.deepStrictEqual(yield* jobs.get(owner, job.id), job)
          const events = yield* publishedEvents(owner, job.id)
          assert.deepStrictEqual(events.map((event) => event.type), ["job.created"])
          assert.deepStrictEqual(yield* jobs.view(owner, job.id, { _tag: "Revision", revision: 1 }), {
            ...job,
            asOf: { jobRevision: 1, position: events[0]!.position }
          })
          assert.deepStrictEqual(yield* work.take, { accountId: owner, jobId: job.id, revision: 1, run: 0 })
          assert.isTrue((yield* (yield* JobStore.JobStore).pendingRuns).some((ref) => ref.jobId === job.id))
        }))

      it.effect("hides a Job from every other account", () =>
        Effect.gen(function*() {
          const jobs = yield* Jobs.Jobs
          const owner = account()
          const other = account()
          const job = yield* jobs.create(owner, { request: "A haircut", constraints: [] })
          assert.instanceOf(yield* failure(jobs.get(other, job.id)), UnknownJob)
          assert.instanceOf(yield* failure(jobs.view(other, job.id, { _tag: "Revision", revision: 1 })), UnknownJob)
          assert.instanceOf(yield* failure(jobs.cancel(other, job.id)), UnknownJob)
          assert.instanceOf(
            yield* failure(jobs.changeConstraints(other, job.id, { jobRevision: 1, constraints: [] })),
            UnknownJob
          )
          assert.instanceOf(yield* failure(jobs.events(other, job.id)), UnknownJob)
          assert.deepStrictEqual((yield* jobs.list(other, { limit: 10 })).data, [])
          assert.strictEqual((yield* jobs.get(owner, job.id)).status, "interpreting")
        }))

      it.effect("records an interpretation of the current revision only, and asks, then plans", () =>
        Effect.gen(function*() {
          const jobs = yield* Jobs.Jobs
          const owner = account()
          const job = yield* jobs.create(owner, { request: "A table for 4", constraints: [budget] })
          const ref = { accountId: owner, jobId: job.id, revision: 1, run: 0 }
          const input = yield* interpretationInput(ref)
          assert.isTrue(Option.isSome(input))
          assert.deepStrictEqual(Option.getOrThrow(input).constraints, [budget])
          assert.isFalse(yield* recordInterpretation({ ...ref, revision: 2 }, understood))
          assert.isTrue(yield* recordInterpretation(ref, needsDate))
          // A second reading of the same revision (a runner retrying) changes nothing.
          assert.isFalse(yield* recordInterpretation(ref, understood))
          const asked = yield* jobs.get(owner, job.id)
          assert.strictEqual(asked.status, "awaiting_input")
          assert.strictEqual(asked.jobRevision, 1)
          assert.deepStrictEqual(asked.questions.map((q) => q.id), ["q_date", "q_time"])
          assert.deepStrictEqual(asked.constraints.map((c) => c.source), ["caller", "interpreted"])
          assert.deepStrictEqual(
            (yield* publishedEvents(owner, job.id)).map((event) => event.type),
            ["job.created", "job.input_requested"]
          )
          assert.isTrue(Option.isNone(yield* interpretationInput(ref)))
        }))

      it.effect("takes a partial answer as a new revision with the rest open, and a full one back to interpreting", () =>
        Effect.gen(function*() {
          const jobs = yield* Jobs.Jobs
          const owner = account()
          const job = yield* jobs.create(owner, { request: "A table for 4", constraints: [] })
          yield* recordInterpretation({ accountId: owner, jobId: job.id, revision: 1, run: 0 }, needsDate)

          const unknown = yield* failure(jobs.answer(owner, job.id, { jobRevision: 1, answers: { q_nope: "x" } }))
          assert.instanceOf(unknown, RejectedInput)
          assert.include(unknown!.message, "q_date, q_time")
          const stale = yield* failure(jobs.answer(owner, job.id, { jobRevision: 7, answers: { q_date: "Friday" } }))
          assert.instanceOf(stale, StaleRevision)

          const partial = yield* jobs.answer(owner, job.id, { jobRevision: 1, answers: { q_date: "Friday" } })
          assert.strictEqual(partial.jobRevision, 2)
          assert.strictEqual(partial.status, "awaiting_input")
          assert.deepStrictEqual(partial.questions.map((q) => q.id), ["q_time"])

          const full = yield* jobs.answer(owner, job.id, { jobRevision: 2, answers: { q_time: "8pm" } })
          assert.strictEqual(full.jobRevision, 3)
          assert.strictEqual(full.status, "interpreting")
          assert.deepStrictEqual(full.questions, [])
          assert.strictEqual(full.objective, null)
          const input = Option.getOrThrow(
            yield* interpretationInput({ accountId: owner, jobId: job.id, revision: 3, run: 0 })
          )
          assert.deepStrictEqual(input.answers, [
            { questionId: "q_date", question: "For when?", answer: "Friday", revision: 2 },
            { questionId: "q_time", question: "At what time?", answer: "8pm", revision: 3 }
          ])
          const noQuestion = yield* failure(jobs.answer(owner, job.id, { jobRevision: 3, answers: { q_time: "9pm" } }))
          assert.instanceOf(noQuestion, WrongState)

          const events = yield* publishedEvents(owner, job.id)
          assert.deepStrictEqual(events.map((event) => [event.type, event.jobRevision]), [
            ["job.created", 1],
            ["job.input_requested", 1],
            ["job.revised", 2],
            ["job.revised", 3],
            ["work.invalidated", 3]
          ])
          const positions = events.map((event) => event.position)
          assert.deepStrictEqual(positions, [...positions].sort((a, b) => a - b))
          assert.strictEqual(new Set(positions).size, positions.length)
          assert.strictEqual(
            (yield* jobs.view(owner, job.id, { _tag: "Revision", revision: 2 })).status,
            "awaiting_input"
          )
          assert.instanceOf(yield* failure(jobs.view(owner, job.id, { _tag: "Revision", revision: 4 })), UnknownJob)
        }))

      it.effect("changes constraints as a new revision; equal ones, in any order, change nothing", () =>
        Effect.gen(function*() {
          const jobs = yield* Jobs.Jobs
          const owner = account()
          const job = yield* jobs.create(owner, { request: "A table for 4", constraints: [budget, place] })
          yield* recordInterpretation({ accountId: owner, jobId: job.id, revision: 1, run: 0 }, understood)
          const planned = yield* jobs.get(owner, job.id)
          assert.strictEqual(planned.status, "planning")

          const same = yield* jobs.changeConstraints(owner, job.id, { jobRevision: 1, constraints: [place, budget] })
          assert.deepStrictEqual(same, planned)
          assert.strictEqual((yield* publishedEvents(owner, job.id)).length, 2)

          const stale = yield* failure(jobs.changeConstraints(owner, job.id, { jobRevision: 2, constraints: [] }))
          assert.instanceOf(stale, StaleRevision)

          const changed = yield* jobs.changeConstraints(owner, job.id, { jobRevision: 1, constraints: [budget] })
          assert.strictEqual(changed.jobRevision, 2)
          assert.strictEqual(changed.status, "interpreting")
          assert.deepStrictEqual(changed.constraints.map((c) => c.id), [job.constraints[0]!.id])
          assert.deepStrictEqual(
            (yield* publishedEvents(owner, job.id)).map((event) => event.type),
            ["job.created", "job.interpreted", "job.revised", "work.invalidated"]
          )
          // The reading of revision 1 arrives late: it is dropped.
          assert.isFalse(
            yield* recordInterpretation({ accountId: owner, jobId: job.id, revision: 1, run: 0 }, understood)
          )
          assert.strictEqual((yield* jobs.view(owner, job.id, { _tag: "Revision", revision: 1 })).status, "planning")
        }))

      it.effect("cancels without a new revision, and a terminal Job refuses every change", () =>
        Effect.gen(function*() {
          const jobs = yield* Jobs.Jobs
          const owner = account()
          const job = yield* jobs.create(owner, { request: "A table for 4", constraints: [] })
          const cancelled = yield* jobs.cancel(owner, job.id)
          assert.strictEqual(cancelled.status, "cancelled")
          assert.strictEqual(cancelled.jobRevision, 1)
          assert.instanceOf(yield* failure(jobs.cancel(owner, job.id)), WrongState)
          // invalid_state wins over revision_mismatch.
          assert.instanceOf(
            yield* failure(jobs.changeConstraints(owner, job.id, { jobRevision: 9, constraints: [budget] })),
            WrongState
          )
          assert.instanceOf(
            yield* failure(jobs.answer(owner, job.id, { jobRevision: 1, answers: { q: "x" } })),
            WrongState
          )
          assert.isFalse(
            yield* recordInterpretation({ accountId: owner, jobId: job.id, revision: 1, run: 0 }, understood)
          )
          assert.isFalse((yield* (yield* JobStore.JobStore).pendingRuns).some((ref) => ref.jobId === job.id))
          assert.deepStrictEqual(
            (yield* publishedEvents(owner, job.id)).map((event) => event.type),
            ["job.created", "job.cancelled"]
          )
        }))

      it.effect("lists newest first, by pages, filtered by status; a cursor it did not give is refused", () =>
        Effect.gen(function*() {
          const jobs = yield* Jobs.Jobs
          const owner = account()
          const created = []
          for (let i = 0; i < 5; i++) created.push(yield* jobs.create(owner, { request: `Job ${i}`, constraints: [] }))
          yield* jobs.cancel(owner, created[1]!.id)
          const first = yield* jobs.list(owner, { limit: 2 })
          assert.deepStrictEqual(first.data.map((job) => job.request), ["Job 4", "Job 3"])
          const second = yield* jobs.list(owner, { limit: 2, cursor: first.nextCursor! })
          assert.deepStrictEqual(second.data.map((job) => job.request), ["Job 2", "Job 1"])
          const third = yield* jobs.list(owner, { limit: 2, cursor: second.nextCursor! })
          assert.deepStrictEqual(third.data.map((job) => job.request), ["Job 0"])
          assert.strictEqual(third.nextCursor, null)
          const cancelled = yield* jobs.list(owner, { limit: 10, status: "cancelled" })
          assert.deepStrictEqual(cancelled.data.map((job) => job.id), [created[1]!.id])
          for (const cursor of ["garbage!", "eyJiZWZvcmUiOi0xfQ", Buffer.from("{}").toString("base64url")]) {
            assert.instanceOf(yield* failure(jobs.list(owner, { limit: 2, cursor })), RejectedInput)
          }
        }))
    })

    describe("Idempotency", () => {
      const answer = { status: 201, headers: { location: "/v1/jobs/x" }, body: `{"id":"x","ü":"😀"}` }

      it.effect("claims a key once per account; replays its answer; refuses it for another request", () =>
        Effect.gen(function*() {
          const idempotency = yield* Idempotency.Idempotency
          const owner = account()
          const claimed = yield* idempotency.claim(owner, "k", "fp1")
          assert.strictEqual(claimed._tag, "Claimed")
          const inUse = yield* failure(idempotency.claim(owner, "k", "fp1"))
          assert.strictEqual(code(inUse), "idempotency_key_in_use")
          assert.strictEqual(
            code(yield* failure(idempotency.claim(owner, "k", "fp2"))),
            "idempotency_key_reused"
          )
          // Another account's key of the same name is its own.
          assert.strictEqual((yield* idempotency.claim(account(), "k", "fp1"))._tag, "Claimed")
          if (claimed._tag !== "Claimed") return assert.fail("not claimed")
          assert.deepStrictEqual(yield* idempotency.complete(claimed.claim, Effect.succeed(answer)), answer)
          const replay = yield* idempotency.claim(owner, "k", "fp1")
          assert.deepStrictEqual(replay, { _tag: "Replay", answer })
          assert.strictEqual(
            code(yield* failure(idempotency.claim(owner, "k", "fp2"))),
            "idempotency_key_reused"
          )
        }))

      it.effect("stores nothing for an operation that fails, and frees the key for a retry", () =>
        Effect.gen(function*() {
          const idempotency = yield* Idempotency.Idempotency
          const owner = account()
          const claimed = yield* idempotency.claim(owner, "k", "fp")
          if (claimed._tag !== "Claimed") return assert.fail("not claimed")
          const failed = yield* failure(
            idempotency.complete(claimed.claim, Effect.fail(new Unavailable({ retryAfter: 5 })))
          )
          assert.instanceOf(failed, Unavailable)
          assert.strictEqual((yield* idempotency.claim(owner, "k", "fp"))._tag, "Claimed")
        }))
    })

    describe("Proposals and Approvals", () => {
      const clear: Interpretation = { _tag: "Understood", ...tableFor4 }
      /** A Job interpreted by hand and planned by the runner's step (no runner here): its proposal is open. */
      const planned = (constraints: ReadonlyArray<typeof budget | { type: "note"; text: string }> = [budget]) =>
        Effect.gen(function*() {
          const jobs = yield* Jobs.Jobs
          const owner = account()
          const job = yield* jobs.create(owner, { request: "A table for 4", constraints })
          const ref = { accountId: owner, jobId: job.id, revision: 1, run: 0 }
          yield* recordInterpretation(ref, clear)
          yield* advance(ref)
          return { owner, ref, job: yield* jobs.get(owner, job.id) }
        })

      it.effect("presents the first quote that fits, stored once as the canonical bytes its hash names", () =>
        Effect.gen(function*() {
          const jobs = yield* Jobs.Jobs
          const proposals = yield* Proposals.Proposals
          const { job, owner, ref } = yield* planned()
          assert.strictEqual(job.status, "awaiting_approval")
          const proposal = job.proposal!
          assert.strictEqual(proposal.status, "open")
          assert.isTrue(Number(proposal.document.spend.amount) <= 200)
          const bytes = yield* proposals.document(owner, job.id, proposal.proposalHash)
          assert.strictEqual(Proposal.hashOf(bytes), proposal.proposalHash)
          assert.deepStrictEqual(JSON.parse(bytes), proposal.document)
          assert.instanceOf(yield* failure(proposals.document(account(), job.id, proposal.proposalHash)), UnknownJob)
          assert.instanceOf(yield* failure(proposals.document(owner, job.id, `sha256:${"0".repeat(64)}`)), UnknownJob)
          // Planning again in the same run changes nothing: the Job no longer plans, it waits for a decision.
          assert.deepStrictEqual(yield* advance(ref), { waitUntil: proposal.document.expiresAt })
          assert.deepStrictEqual((yield* jobs.get(owner, job.id)).proposal, proposal)
        }))

      it.effect("records a decision once, in the order of checks, and an approval is consumed by one claim", () =>
        Effect.gen(function*() {
          const jobs = yield* Jobs.Jobs
          const { job, owner, ref } = yield* planned()
          const principal = {
            accountId: owner,
            keyId: "key_test" as ApiKeyId,
            scopes: new Set(["approvals:write"] as const)
          }
          const hash = job.proposal!.proposalHash
          const decide = (
            input: Partial<{ proposalHash: ProposalHash; jobRevision: number; decision: "approve" | "reject" }>
          ) =>
            failure(
              jobs.decide(principal, job.id, { proposalHash: hash, jobRevision: 1, decision: "approve", ...input })
            )
          assert.instanceOf(
            yield* failure(jobs.decide({ ...principal, accountId: account() }, job.id, {
              proposalHash: hash,
              jobRevision: 1,
              decision: "approve"
            })),
            UnknownJob
          )
          assert.strictEqual(code(yield* decide({ jobRevision: 2 })), "revision_mismatch")
          assert.strictEqual(
            code(yield* decide({ proposalHash: `sha256:${"1".repeat(64)}` as ProposalHash })),
            "proposal_mismatch"
          )
          const approval = yield* jobs.decide(principal, job.id, {
            proposalHash: hash,
            jobRevision: 1,
            decision: "approve"
          })
          assert.deepStrictEqual([approval.decision, approval.decidedBy, approval.reason], [
            "approve",
            "key_test",
            null
          ])
          assert.strictEqual(code(yield* decide({ decision: "reject" })), "invalid_state")
          const approved = yield* jobs.get(owner, job.id)
          assert.deepStrictEqual([approved.status, approved.proposal?.status], ["executing", "approved"])
          // The run the decision began claims it once; the old run, and a second claim, get nothing.
          assert.strictEqual(yield* claim(ref), "none")
          assert.strictEqual(yield* claim({ ...ref, run: 1 }), "started")
          assert.strictEqual(yield* claim({ ...ref, run: 1 }), "none")
          const events = yield* publishedEvents(owner, job.id)
          const started = events.filter((event) => event.type === "execution.started")
          assert.deepStrictEqual(started.map((event) => event.data), [{
            proposalHash: hash,
            executionNumber: 1,
            status: "executing"
          }])
        }))

      it.effect("a proposal past its expiry is refused and then superseded; the Job plans again", () =>
        Effect.gen(function*() {
          const jobs = yield* Jobs.Jobs
          const proposals = yield* Proposals.Proposals
          const { job, owner } = yield* planned()
          const principal = {
            accountId: owner,
            keyId: "key_test" as ApiKeyId,
            scopes: new Set(["approvals:write"] as const)
          }
          yield* TestTime.pass(job.proposal!.document.expiresAt)
          const late = yield* failure(jobs.decide(principal, job.id, {
            proposalHash: job.proposal!.proposalHash,
            jobRevision: 1,
            decision: "approve"
          }))
          assert.strictEqual(code(late), "proposal_expired")
          assert.isAtLeast(yield* proposals.expireDue, 1)
          const replanning = yield* jobs.get(owner, job.id)
          assert.deepStrictEqual([replanning.status, replanning.proposal?.status], ["planning", "expired"])
        }))

      it.effect("with no offer that fits, asks the User", () =>
        Effect.gen(function*() {
          const { job } = yield* planned([budget, { type: "note", text: "sandbox:no-offers" }])
          assert.strictEqual(job.status, "awaiting_input")
          assert.deepStrictEqual(job.questions.map((question) => question.id), ["q_offers"])
        }))

      it.effect("the sandbox performs one side effect per key, however many calls carry it at once", () =>
        Effect.gen(function*() {
          const providers = yield* Providers
          const ledger = yield* Sandbox.SandboxLedger
          const { job } = yield* planned()
          const proposal = job.proposal!
          const key = `${job.id}:${proposal.proposalHash}:1`
          const receipts = yield* Effect.forEach(
            Array.from({ length: 20 }),
            () => providers.execute({ key, proposalHash: proposal.proposalHash, document: proposal.document }),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(new Set(receipts.map((receipt) => receipt.reference)).size, 1)
          assert.deepStrictEqual(
            (yield* ledger.entries(job.id)).map((entry) => [entry.key, entry.calls, entry.effects, entry.state]),
            [[key, 20, 1, "succeeded"]]
          )
          // The same objective and constraints: the same offers, byte for byte.
          const request = {
            jobId: job.id,
            jobRevision: 1,
            objective: clear.objective,
            constraints: proposal.document.constraints
          }
          assert.deepStrictEqual(
            yield* providers.quote(request),
            yield* providers.quote({ ...request, jobId: "job_other" as JobId })
          )
        }))
    })
  })

/**
 * On PostgreSQL, transactions commit in another order than they took their ids: an event is published
 * only once no transaction that took its id before it is still running, so that a reader that has
 * read it can never be overtaken by an older one.
 */
describe.skipIf(TestDatabase.kind !== "PostgreSQL")("Job events on PostgreSQL (needs TEST_DATABASE_URL)", () => {
  layer(storesLive(), { timeout: "60 seconds", excludeTestServices: true })("publication", (it) => {
    it.effect("holds back a committed event while an older transaction is open", () =>
      Effect.gen(function*() {
        const jobs = yield* Jobs.Jobs
        const owner = account()
        // Another session takes a transaction id first, and commits last.
        const older = yield* Effect.acquireRelease(
          Effect.promise(async () => {
            const client = new pg.Client({ connectionString: TestDatabase.adminUrl })
            await client.connect()
            await client.query("BEGIN")
            await client.query("SELECT pg_current_xact_id()")
            return client
          }),
          (client) => Effect.promise(() => client.end())
        )
        const job = yield* jobs.create(owner, { request: "The newer one", constraints: [] })
        const held = yield* jobs.eventPage(owner, { after: 0, limit: 10 })
        assert.deepStrictEqual(held.events, [], "the newer event waits for the older transaction")
        assert.isTrue(held.pending)
        yield* Effect.promise(() => older.query("COMMIT"))
        // Published once every older transaction has ended: this one, and any other test file's.
        const published = yield* publishedPage(owner, { after: 0, limit: 10 })
        assert.deepStrictEqual(published.events.map((event) => [event.jobId, event.type]), [[job.id, "job.created"]])
      }).pipe(Effect.scoped))
  })
})

describe("Job API stores", () => {
  behaviour("in memory", stores())
  behaviour(`on ${TestDatabase.kind}`, storesLive())
})

/**
 * Idempotency's TTLs (1 s to complete a claim, 10 s kept), waited out: on PostgreSQL the database's clock measures
 * them. The retention is wide, so that the checks of a replay within it need no fast machine.
 */
const lapses = (name: string, layerUnderTest: Layer.Layer<Idempotency.Idempotency, unknown>) =>
  layer(layerUnderTest, { timeout: "60 seconds", excludeTestServices: true })(name, (it) => {
    const answer = { status: 201, headers: { location: "/v1/jobs/x" }, body: `{"id":"x"}` }

    it.effect("lets a claim lapse after its TTL, and refuses to complete a claim another request took over", () =>
      Effect.gen(function*() {
        const idempotency = yield* Idempotency.Idempotency
        const owner = account()
        const first = yield* idempotency.claim(owner, "k", "fp")
        yield* Effect.sleep("1200 millis")
        const second = yield* idempotency.claim(owner, "k", "fp")
        assert.strictEqual(second._tag, "Claimed")
        if (first._tag !== "Claimed" || second._tag !== "Claimed") return assert.fail("not claimed")
        assert.notStrictEqual(first.claim.token, second.claim.token)
        let ran = false
        const late = yield* failure(idempotency.complete(first.claim, Effect.sync(() => (ran = true, answer))))
        assert.strictEqual(code(late), "idempotency_key_in_use")
        assert.isFalse(ran)
        yield* idempotency.complete(second.claim, Effect.succeed(answer))
        assert.strictEqual((yield* idempotency.claim(owner, "k", "fp"))._tag, "Replay")
      }))

    it.effect("prunes keys past their retention; a pruned key is new again", () =>
      Effect.gen(function*() {
        const idempotency = yield* Idempotency.Idempotency
        const owner = account()
        const claimed = yield* idempotency.claim(owner, "old", "fp")
        if (claimed._tag !== "Claimed") return assert.fail("not claimed")
        yield* idempotency.complete(claimed.claim, Effect.succeed(answer))
        yield* idempotency.prune
        assert.strictEqual((yield* idempotency.claim(owner, "old", "fp"))._tag, "Replay")
        yield* Effect.sleep("10200 millis")
        assert.isAtLeast(yield* idempotency.prune, 1)
        assert.strictEqual((yield* idempotency.claim(owner, "old", "other"))._tag, "Claimed")
      }))
  })

describe("Idempotency's lapses", () => {
  lapses("in memory", stores(shortLived))
  lapses(`on ${TestDatabase.kind}`, storesLive(shortLived))
})
