import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import { questionId } from "../../schema/Constraint.ts"
import type { JobStatus } from "../../schema/Job.ts"
import { canonicalJson } from "../../schema/Json.ts"
import { atMost, isZero } from "../../schema/Money.ts"
import type { Approval, ApprovalId, ApprovalRequest, ProposalHash } from "../../schema/Proposal.ts"
import { ProposalDocument } from "../../schema/Proposal.ts"
import type { Quote } from "../providers/Provider.ts"
import { executionKey } from "../providers/Provider.ts"
import { sha256Hex } from "../Sha256.ts"
import { ProposalLapsed, ProposalNotOpen, StaleRevision, WrongState } from "./JobErrors.ts"
import type { Change, ExecutionState, JobRecord, NewEvent, ProposalState, RunRef } from "./JobRecord.ts"

/**
 * The rules of a Job's work after its interpretation (docs/API.md, "Proposals, approvals,
 * execution"), as pure functions from a Job to the Job after a step and the events that say so, like
 * `JobLifecycle`'s. Every event that moves the Job carries its new `status`, so the fold of the events
 * gives the Job.
 */

/** A quote fits when no budget of the revision is exceeded (same currency, never above `max`). */
export const fits = (record: JobRecord, quote: Quote) =>
  [...record.callerConstraints, ...record.interpretedConstraints].every((constraint) =>
    constraint.type !== "budget" || atMost(quote.price, constraint.max)
  )

export const hashOf = (bytes: string): ProposalHash => `sha256:${sha256Hex(bytes)}` as ProposalHash

/** The RFC 8785 canonical form of a document, the exact text a proposal hash names. */
export const canonicalBytes = (document: ProposalDocument): string => canonicalJson(document)

export const newApprovalId = (): ApprovalId => `apr_${randomBytes(12).toString("hex")}` as ApprovalId

export const isCurrent = (record: JobRecord, ref: RunRef) => record.revision === ref.revision && record.run === ref.run

export const at = (record: JobRecord, now: string, changes: Partial<JobRecord>): JobRecord => ({
  ...record,
  ...changes,
  updatedAt: now
})

export const noChange = (record: JobRecord): Change => ({ record, events: [] })

export const step = (action: string, status: JobStatus, data: Record<string, unknown> = {}): NewEvent => ({
  type: "recovery.step",
  data: { action, ...data, status }
})

export interface Planned {
  readonly provider: string
  readonly quotes: ReadonlyArray<Quote>
  readonly ttlMillis: number
}

/** What the API can show: a proposal is stored only when its document encodes as the API sends it. */
const isShowable = Schema.is(ProposalDocument)

/** The proposal of the first quote that fits, was not excluded, and can be shown exactly. */
const firstProposal = (record: JobRecord, planned: Planned, now: string) => {
  for (const quote of planned.quotes) {
    if (record.excludedOffers.includes(quote.offer.id) || !fits(record, quote)) continue
    const document: ProposalDocument = {
      jobId: record.id,
      jobRevision: record.revision,
      provider: planned.provider,
      offer: quote.offer,
      spend: quote.price,
      terms: quote.terms,
      objective: record.objective!,
      constraints: [...record.callerConstraints, ...record.interpretedConstraints],
      createdAt: now,
      expiresAt: new Date(Date.parse(now) + planned.ttlMillis).toISOString()
    }
    // A provider's offer the contract cannot carry (an amount of 16 digits, say) is no offer.
    if (isShowable(document)) return { quote, document }
  }
  return undefined
}

/**
 * Presents the first quote that fits and was not excluded, as an immutable proposal; one that costs
 * nothing and whose cancellation costs nothing needs no authority and executes at once. No quote left:
 * the Job asks the User (recovery `ask` when offers were excluded).
 */
export const present = (record: JobRecord, ref: RunRef, planned: Planned, now: string): Change => {
  if (!isCurrent(record, ref) || record.status !== "planning" || record.objective === null) return noChange(record)
  const found = firstProposal(record, planned, now)
  if (found === undefined) {
    const question = {
      id: questionId("offers"),
      text: record.excludedOffers.length === 0
        ? "No offer can be had for this request as it stands. Change its constraints (a larger budget, another day or place), or tell us what to relax."
        : "No offer is left for this request: the others were declined or could not be carried out. Change its constraints, or tell us what to relax.",
      about: "offers" as const
    }
    return {
      record: at(record, now, { status: "awaiting_input", questions: [question] }),
      events: [
        ...(record.excludedOffers.length === 0 ? [] : [step("ask", "awaiting_input")]),
        {
          type: "job.input_requested",
          data: { objective: record.objective, constraints: record.interpretedConstraints, questions: [question] }
        }
      ]
    }
  }
  const { document, quote } = found
  const bytes = canonicalBytes(document)
  const hash = hashOf(bytes)
  const free = isZero(quote.price) && isZero(quote.terms.cancellationFee)
  const status: JobStatus = free ? "executing" : "awaiting_approval"
  const proposalStatus = free ? "approved" : "open"
  return {
    record: at(record, now, { status, proposal: { hash, status: proposalStatus, document } }),
    events: [{
      type: "proposal.presented",
      data: {
        proposalHash: hash,
        spend: document.spend,
        expiresAt: document.expiresAt,
        needsApproval: !free,
        proposalStatus,
        document,
        status
      }
    }],
    proposal: { hash, bytes, createdAt: now }
  }
}

export const expired = (record: JobRecord, now: string) =>
  record.proposal !== null && Date.parse(now) >= Date.parse(record.proposal.document.expiresAt)

/** An open proposal past its `expiresAt`: superseded as `expired`, and the Job plans again (a new run). */
export const expire = (record: JobRecord, now: string): Change => {
  if (record.status !== "awaiting_approval" || record.proposal?.status !== "open" || !expired(record, now)) {
    return noChange(record)
  }
  return {
    record: at(record, now, {
      status: "planning",
      proposal: { ...record.proposal, status: "expired" },
      run: record.run + 1
    }),
    events: [{
      type: "proposal.superseded",
      data: { proposalHash: record.proposal.hash, reason: "expired", proposalStatus: "expired", status: "planning" }
    }]
  }
}

export type DecisionError = StaleRevision | WrongState | ProposalNotOpen | ProposalLapsed

/**
 * The open proposal a decision on `input` would decide, in the order of checks of docs/API.md, "Which
 * error wins": the revision, the state (a proposal is decided once), the hash, the expiry. A decision and
 * an approval link pass the same checks.
 */
export const decidable = (
  record: JobRecord,
  input: { readonly proposalHash: ProposalHash; readonly jobRevision: number },
  now: string
): Result.Result<ProposalState, DecisionError> => {
  if (input.jobRevision !== record.revision) {
    return Result.fail(
      new StaleRevision({
        message:
          `The Job is at revision ${record.revision}, not ${input.jobRevision}; read it again and decide on its proposal.`
      })
    )
  }
  if (record.decided.includes(input.proposalHash)) {
    return Result.fail(new WrongState({ message: "This proposal was decided already; the first decision stands." }))
  }
  const proposal = record.proposal
  if (record.status !== "awaiting_approval" || proposal === null || proposal.status !== "open") {
    return Result.fail(
      new WrongState({ message: `The Job is ${record.status}; it has no proposal waiting for a decision.` })
    )
  }
  if (proposal.hash !== input.proposalHash) {
    return Result.fail(
      new ProposalNotOpen({ message: `The open proposal is ${proposal.hash}; read the Job again and decide on it.` })
    )
  }
  if (expired(record, now)) {
    return Result.fail(
      new ProposalLapsed({
        message:
          `The proposal expired at ${proposal.document.expiresAt}; the Job plans again. Decide on its next proposal.`
      })
    )
  }
  return Result.succeed(proposal)
}

/**
 * Records a decision on the open proposal, after the checks of `decidable`. `approve` → `executing`;
 * `reject` → `planning` again without that offer. Either begins a new run. `decidedBy` is the key's id,
 * or `link:{id}` for a decision made through an approval link.
 */
export const decide = (
  record: JobRecord,
  input: ApprovalRequest,
  decidedBy: string,
  now: string
): Result.Result<Change & { readonly approval: Approval }, DecisionError> => {
  const checked = decidable(record, input, now)
  if (Result.isFailure(checked)) return Result.fail(checked.failure)
  const proposal = checked.success
  const approval: Approval = {
    id: newApprovalId(),
    jobId: record.id,
    jobRevision: record.revision,
    proposalHash: proposal.hash,
    decision: input.decision,
    reason: input.reason ?? null,
    decidedBy,
    createdAt: now
  }
  const approve = input.decision === "approve"
  const status: JobStatus = approve ? "executing" : "planning"
  const proposalStatus = approve ? "approved" : "rejected"
  const recorded: NewEvent = {
    type: "approval.recorded",
    data: {
      approvalId: approval.id,
      proposalHash: proposal.hash,
      decision: input.decision,
      decidedBy,
      proposalStatus,
      status
    }
  }
  return Result.succeed({
    record: at(record, now, {
      status,
      proposal: { ...proposal, status: proposalStatus },
      decided: [...record.decided, proposal.hash],
      excludedOffers: approve ? record.excludedOffers : [...record.excludedOffers, proposal.document.offer.id],
      run: record.run + 1
    }),
    events: approve ? [recorded] : [
      recorded,
      {
        type: "proposal.superseded",
        data: { proposalHash: proposal.hash, reason: "rejected", proposalStatus, status }
      }
    ],
    approval
  })
}

/**
 * An approval link for the open proposal (docs/API.md, "Approval links"): under the same checks as a
 * decision, and recorded in the Job's history, which says who may decide: whoever holds the link.
 */
export const linkCreated = (
  record: JobRecord,
  input: { readonly proposalHash: ProposalHash; readonly jobRevision: number },
  linkId: string,
  now: string
): Result.Result<Change, DecisionError> =>
  Result.map(decidable(record, input, now), (proposal) => ({
    record: at(record, now, {}),
    events: [{ type: "approval_link.created", data: { linkId, proposalHash: proposal.hash } }]
  }))

/** Why a claim did not start an execution. */
export type Claimed =
  | { readonly _tag: "Started"; readonly change: Change }
  | { readonly _tag: "Blocked" }
  | { readonly _tag: "Stop"; readonly change: Change }

/**
 * The claim, in one transaction with its check (the fence): the Job still executes this run's approved
 * proposal, which no execution has consumed and which has not expired; it takes the next durable
 * execution number, which names the provider key. An execution of an older revision still being
 * settled blocks it: a revision executes nothing until the last one's side effect is undone.
 */
export const claim = (record: JobRecord, ref: RunRef, now: string): Claimed => {
  const proposal = record.proposal
  if (!isCurrent(record, ref) || record.status !== "executing" || proposal?.status !== "approved") {
    return { _tag: "Stop", change: noChange(record) }
  }
  if (record.execution !== null) {
    return record.execution.revision === record.revision && record.execution.run === record.run
      ? { _tag: "Stop", change: noChange(record) }
      : { _tag: "Blocked" }
  }
  if (expired(record, now)) {
    return {
      _tag: "Stop",
      change: {
        record: at(record, now, { status: "planning", proposal: { ...proposal, status: "expired" } }),
        events: [{
          type: "proposal.superseded",
          data: { proposalHash: proposal.hash, reason: "expired", proposalStatus: "expired", status: "planning" }
        }]
      }
    }
  }
  const number = record.executions + 1
  const execution: ExecutionState = {
    number,
    proposalHash: proposal.hash,
    offerId: proposal.document.offer.id,
    key: executionKey(record.id, proposal.hash, number),
    revision: record.revision,
    run: record.run,
    phase: "calling",
    reference: null,
    attempts: 0,
    undoAttempts: 0,
    undoReason: null
  }
  return {
    _tag: "Started",
    change: {
      record: at(record, now, { executions: number, execution }),
      events: [{
        type: "execution.started",
        data: { proposalHash: proposal.hash, executionNumber: number, status: "executing" }
      }],
      consumes: proposal.hash
    }
  }
}
