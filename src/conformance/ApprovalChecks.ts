import * as Effect from "effect/Effect"
import { createHash } from "node:crypto"
import type { Job } from "../schema/Job.ts"
import { EventPage } from "../schema/JobEvent.ts"
import * as Money from "../schema/Money.ts"
import type { JobProposal } from "../schema/Proposal.ts"
import { Approval } from "../schema/Proposal.ts"
import type { Check } from "./Check.ts"
import {
  check,
  decode,
  expectError,
  expectHeader,
  expectStatus,
  expectThat,
  mismatch,
  once,
  parseJson,
  poll,
  show
} from "./Check.ts"
import type { JobApi } from "./JobApi.ts"
import { budget } from "./JobApi.ts"

/**
 * Proposals, decisions, execution and verification (docs/API.md, "Proposals, approvals, execution"). These
 * approve spending, so they run only against the sandbox provider, which spends nothing and takes test
 * directives as `{"type": "note", "text": "sandbox:<directive>"}`.
 */

const clear = "Book a table for 4 at an Italian restaurant in Lisbon next Friday at 8pm"
const directive = (name: string) => ({ type: "note", text: `sandbox:${name}` })

/** JSON with sorted members, to compare documents whatever the order of their members. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : typeof value === "object" && value !== null
    ? `{${
      Object.keys(value).sort().map((key) =>
        `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`
      )
        .join(",")
    }}`
    : JSON.stringify(value)

/** Whether `expected` occur in `types` in this order (others may come between). */
const inOrder = (types: ReadonlyArray<string>, expected: ReadonlyArray<string>) => {
  let at = 0
  for (const type of types) if (type === expected[at]) at++
  return at === expected.length
}

export const approvalChecks = (api: JobApi): ReadonlyArray<Check> => {
  const proposed = (label: string, constraints: ReadonlyArray<unknown>) =>
    once(
      label,
      Effect.gen(function*() {
        const created = yield* api.create(clear, constraints)
        const job = yield* api.settled(created.id)
        const proposal = job.proposal
        if (job.status !== "awaiting_approval" || proposal === null || proposal.status !== "open") {
          return yield* mismatch(
            "awaiting_approval with an open proposal",
            `${api.showJob(job)}, proposal ${proposal?.status}`
          )
        }
        return { job, proposal }
      })
    )

  const decide = (
    { job, proposal }: { readonly job: Job; readonly proposal: JobProposal },
    change: Record<string, unknown> = {},
    idempotencyKey?: string
  ) =>
    api.post(`/v1/jobs/${job.id}/approvals`, {
      proposalHash: proposal.proposalHash,
      jobRevision: job.jobRevision,
      decision: "approve",
      ...change
    }, idempotencyKey === undefined ? {} : { idempotencyKey })

  const eventTypes = (id: string) =>
    api.get(`/v1/jobs/${id}/events?limit=1000`).pipe(
      Effect.tap((answer) => expectStatus(answer, 200)),
      Effect.flatMap(parseJson),
      Effect.flatMap(decode(EventPage, "a page of events")),
      Effect.map((page) => page.data)
    )

  const main = proposed("a Job with a proposal", [budget])
  const approveKey = api.idempotencyKey()

  const approval = once(
    "an approval",
    Effect.gen(function*() {
      const answer = yield* decide(yield* main, {}, approveKey)
      yield* expectStatus(answer, 201)
      return { answer, approval: yield* Effect.flatMap(parseJson(answer), decode(Approval, "an Approval")) }
    })
  )

  const completed = once(
    "the approved Job's end",
    Effect.gen(function*() {
      const { job } = yield* main
      yield* approval
      return yield* poll(
        "the Job to complete",
        api.readJob(job.id),
        (read) => ["completed", "failed", "cancelled"].includes(read.status),
        api.showJob
      )
    })
  )

  const withinBudget = Effect.gen(function*() {
    const { job, proposal } = yield* main
    const { document } = proposal
    yield* expectThat(
      /^sha256:[0-9a-f]{64}$/.test(proposal.proposalHash) && document.jobId === job.id
        && document.jobRevision === job.jobRevision && Money.atMost(document.spend, budget.max),
      "a proposal of this Job and revision whose spend is at most the budget, 200.00 EUR",
      JSON.stringify({ proposalHash: proposal.proposalHash, spend: document.spend, jobRevision: document.jobRevision })
    )
  })

  const bytes = Effect.gen(function*() {
    const { job, proposal } = yield* main
    const path = `/v1/jobs/${job.id}/proposals/${proposal.proposalHash}`
    const answer = yield* api.get(path)
    yield* expectStatus(answer, 200)
    yield* expectHeader(answer, "content-type", "application/json")
    yield* expectHeader(answer, "etag", `"${proposal.proposalHash}"`)
    const hash = `sha256:${createHash("sha256").update(answer.bytes).digest("hex")}`
    yield* expectThat(hash === proposal.proposalHash, `bytes whose SHA-256 is ${proposal.proposalHash}`, hash)
    const document = yield* parseJson(answer)
    yield* expectThat(
      canonical(document) === canonical(proposal.document),
      "the document the Job shows",
      show(answer)
    )
    const cached = yield* api.get(path, { "if-none-match": `"${proposal.proposalHash}"` })
    yield* expectThat(cached.status === 304, "304 to If-None-Match with the ETag", show(cached))
  })

  const approved = Effect.gen(function*() {
    const { answer, approval: recorded } = yield* approval
    const { job, proposal } = yield* main
    yield* expectThat(
      recorded.jobId === job.id && recorded.jobRevision === job.jobRevision
        && recorded.proposalHash === proposal.proposalHash && recorded.decision === "approve" &&
        recorded.reason === null,
      "the Approval of this proposal at this revision, reason null",
      show(answer)
    )
    const replay = yield* decide(yield* main, {}, approveKey)
    yield* expectThat(replay.status === 201 && replay.body === answer.body, show(answer), show(replay))
    yield* expectHeader(replay, "idempotent-replayed", "true")
  })

  const outcome = Effect.gen(function*() {
    const { proposal } = yield* main
    const job = yield* completed
    const spend = proposal.document.spend
    yield* expectThat(
      job.status === "completed" && job.outcome !== null && Money.atMost(job.outcome.spent, spend)
        && job.proposal?.status === "approved",
      `completed, with an Outcome that spent at most ${spend.amount} ${spend.currency}, the proposal approved`,
      `${api.showJob(job)}, outcome ${JSON.stringify(job.outcome)}`
    )
    const types = (yield* eventTypes(job.id)).map((event) => event.type)
    const path = [
      "approval.recorded",
      "execution.started",
      "execution.succeeded",
      "verification.succeeded",
      "job.completed"
    ]
    yield* expectThat(inOrder(types, path), `events in this order: ${path.join(", ")}`, types.join(", "))
  })

  const transient = Effect.gen(function*() {
    const target = yield* proposed("a Job with a proposal", [budget, directive("transient-once")])
    yield* expectStatus(yield* decide(target), 201)
    const job = yield* api.settled(target.job.id)
    yield* expectThat(job.status === "completed" && job.outcome !== null, "completed with an Outcome", api.showJob(job))
    const events = yield* eventTypes(job.id)
    const failed = events.find((event) => event.type === "execution.failed")
    const succeeded = events.filter((event) => event.type === "execution.succeeded")
    const retry = events.find((event) => event.type === "recovery.step" && event.data.action === "retry")
    yield* expectThat(
      failed !== undefined && retry !== undefined && succeeded.length === 1
        && failed.position < retry.position && retry.position < succeeded[0]!.position
        && failed.data.executionNumber === succeeded[0]!.data.executionNumber,
      "execution.failed, recovery.step retry, then one execution.succeeded with the same execution number (key)",
      events.map((event) => event.type === "recovery.step" ? `recovery.step:${String(event.data.action)}` : event.type)
        .join(", ")
    )
  })

  const rejection = proposed("a Job with a proposal", [budget])

  const rejected = Effect.gen(function*() {
    const target = yield* rejection
    const answer = yield* decide(target, { decision: "reject", reason: "conformance check: another offer" })
    yield* expectStatus(answer, 201)
    const next = yield* poll(
      "a new proposal after the rejection",
      api.readJob(target.job.id),
      (job) => job.status === "awaiting_approval" && job.proposal?.proposalHash !== target.proposal.proposalHash,
      api.showJob
    )
    yield* expectThat(
      next.proposal?.document.offer.id !== target.proposal.document.offer.id &&
        next.jobRevision === target.job.jobRevision,
      `another offer than ${target.proposal.document.offer.id}, at the same revision`,
      `${next.proposal?.document.offer.id} at revision ${next.jobRevision}`
    )
    const cancelled = yield* api.post(`/v1/jobs/${target.job.id}/cancel`, {})
    yield* expectStatus(cancelled, 200)
  })

  return [
    check("sandbox awaiting_approval: a clear request with a budget gets a proposal within it", withinBudget),
    check("sandbox proposal: its bytes hash to proposalHash, with ETag and 304", bytes),
    check(
      "sandbox 409 revision_mismatch: approving at another revision",
      Effect.flatMap(
        main,
        (target) =>
          Effect.flatMap(
            decide(target, { jobRevision: target.job.jobRevision + 1 }),
            (answer) => expectError(answer, 409, "revision_mismatch")
          )
      )
    ),
    check(
      "sandbox 409 proposal_mismatch: approving another hash",
      Effect.flatMap(
        main,
        (target) =>
          Effect.flatMap(
            decide(target, { proposalHash: `sha256:${"0".repeat(64)}` }),
            (answer) => expectError(answer, 409, "proposal_mismatch")
          )
      )
    ),
    check("sandbox 201: approving the proposal records the Approval; its key replays it", approved),
    check("sandbox completed: the approved Job executes, is verified and has an Outcome", outcome),
    check(
      "sandbox 409 invalid_state: a second decision on a decided proposal",
      Effect.gen(function*() {
        yield* completed
        const answer = yield* decide(yield* main, { decision: "reject" })
        yield* expectError(answer, 409, "invalid_state")
      })
    ),
    check("sandbox transient-once: a failed execute is retried with the same key, once", transient),
    check("sandbox reject: a rejected proposal is planned again with another offer", rejected)
  ]
}
