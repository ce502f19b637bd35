import canonicalize from "canonicalize"
import { Result } from "effect"
import { createHash, randomBytes } from "node:crypto"
import type { Money } from "../../schema/Constraint.ts"
import { questionId } from "../../schema/Constraint.ts"
import type { JobStatus } from "../../schema/Job.ts"
import type {
  Approval,
  ApprovalId,
  ApprovalRequest,
  Outcome,
  ProposalDocument,
  ProposalHash
} from "../../schema/Proposal.ts"
import type { Inspection, Quote } from "../providers/Provider.ts"
import { executionKey } from "../providers/Provider.ts"
import { ProposalLapsed, ProposalNotOpen, StaleRevision, WrongState } from "./JobErrors.ts"
import type { Change, ExecutionState, JobRecord, NewEvent, RunRef } from "./JobLifecycle.ts"

/**
 * The rules of a Job's work after its interpretation (jobs.md, "Proposals, approvals, execution: the
 * details"), as pure functions from a Job to the Job after a step and the events that say so, like
 * `JobLifecycle`'s. Every event that moves the Job carries its new `status`, so the fold of the events
 * gives the Job.
 */

/** Money as a whole number of ten-thousandths (the finest minor unit in ISO 4217), exactly. */
const units = (amount: string): bigint => {
  const [whole = "0", fraction = ""] = amount.split(".")
  return BigInt(whole) * 10_000n + BigInt(fraction.padEnd(4, "0").slice(0, 4))
}

export const isZero = (money: Money) => units(money.amount) === 0n

/** `a` is at most `b`, in the same currency. */
export const atMost = (a: Money, b: Money) => a.currency === b.currency && units(a.amount) <= units(b.amount)

/** A quote fits when no budget of the revision is exceeded (same currency, never above `max`). */
const fits = (record: JobRecord, quote: Quote) =>
  [...record.callerConstraints, ...record.interpretedConstraints].every((constraint) =>
    constraint.type !== "budget" || atMost(quote.price, constraint.max)
  )

export const hashOf = (bytes: string): ProposalHash =>
  `sha256:${createHash("sha256").update(bytes, "utf8").digest("hex")}` as ProposalHash

/** The RFC 8785 canonical form of a document, the exact text a proposal hash names. */
export const canonicalBytes = (document: ProposalDocument): string => canonicalize(document)!

export const newApprovalId = (): ApprovalId => `apr_${randomBytes(12).toString("hex")}` as ApprovalId

const isCurrent = (record: JobRecord, ref: RunRef) => record.revision === ref.revision && record.run === ref.run

const at = (record: JobRecord, now: string, changes: Partial<JobRecord>): JobRecord => ({
  ...record,
  ...changes,
  updatedAt: now
})

const noChange = (record: JobRecord): Change => ({ record, events: [] })

const step = (action: string, status: JobStatus, data: Record<string, unknown> = {}): NewEvent => ({
  type: "recovery.step",
  data: { action, ...data, status }
})

export interface Planned {
  readonly provider: string
  readonly quotes: ReadonlyArray<Quote>
  readonly ttlMillis: number
}

/**
 * Presents the first quote that fits and was not excluded, as an immutable proposal; one that costs
 * nothing and whose cancellation costs nothing needs no authority and executes at once. No quote left:
 * the Job asks the User (recovery `ask` when offers were excluded).
 */
export const present = (record: JobRecord, ref: RunRef, planned: Planned, now: string): Change => {
  if (!isCurrent(record, ref) || record.status !== "planning" || record.objective === null) return noChange(record)
  const quote = planned.quotes.find((quote) => !record.excludedOffers.includes(quote.offer.id) && fits(record, quote))
  if (quote === undefined) {
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
  const document: ProposalDocument = {
    jobId: record.id,
    jobRevision: record.revision,
    provider: planned.provider,
    offer: quote.offer,
    spend: quote.price,
    terms: quote.terms,
    objective: record.objective,
    constraints: [...record.callerConstraints, ...record.interpretedConstraints],
    createdAt: now,
    expiresAt: new Date(Date.parse(now) + planned.ttlMillis).toISOString()
  }
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

const expired = (record: JobRecord, now: string) =>
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
 * Records a decision on the open proposal, in jobs.md's order of checks: the revision, the state (a
 * proposal is decided once), the hash, the expiry. `approve` → `executing`; `reject` → `planning`
 * again without that offer. Either begins a new run.
 */
export const decide = (
  record: JobRecord,
  input: ApprovalRequest,
  decidedBy: string,
  now: string
): Result.Result<Change & { readonly approval: Approval }, DecisionError> => {
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
    data: { approvalId: approval.id, proposalHash: proposal.hash, decision: input.decision, proposalStatus, status }
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

/** Whether the Job still wants its execution carried on (rather than undone). */
export const wanted = (record: JobRecord, execution: ExecutionState) =>
  !record.cancelling && record.revision === execution.revision && execution.undoReason === null

const owned = (record: JobRecord, number: number) => record.execution?.number === number ? record.execution : undefined

/** The most attempts a transient failure gets with the same key before the offer is given up. */
export const maxAttempts = 5

/** What one provider call for an execution answered. */
export type CallResult =
  | { readonly _tag: "Succeeded"; readonly reference: string }
  | { readonly _tag: "Transient"; readonly error: string }
  | { readonly _tag: "Permanent"; readonly error: string }

const ids = (execution: ExecutionState) => ({
  proposalHash: execution.proposalHash,
  executionNumber: execution.number
})

/**
 * Records what an execution's call answered. Success: `verifying` (or, when the Job no longer wants it,
 * the side effect is to be undone). A transient failure retries with the same key, at most
 * `maxAttempts` times; a permanent one (or the last transient one) re-plans without the offer.
 */
export const executed = (record: JobRecord, number: number, result: CallResult, now: string): Change => {
  const execution = owned(record, number)
  if (execution === undefined || execution.phase !== "calling") return noChange(record)
  const carryOn = wanted(record, execution)
  if (result._tag === "Succeeded") {
    const status: JobStatus = carryOn ? "verifying" : record.status
    return {
      record: at(record, now, {
        status,
        execution: { ...execution, phase: carryOn ? "succeeded" : "undoing", reference: result.reference }
      }),
      events: [{ type: "execution.succeeded", data: { ...ids(execution), reference: result.reference, status } }]
    }
  }
  const attempts = execution.attempts + 1
  if (result._tag === "Transient" && attempts < maxAttempts) {
    const status: JobStatus = carryOn ? "executing" : record.status
    return {
      record: at(record, now, { status, execution: { ...execution, attempts } }),
      events: [
        {
          type: "execution.failed",
          data: { ...ids(execution), error: result.error, retryable: true, status: carryOn ? "recovering" : status }
        },
        step("retry", status, { ...ids(execution), attempt: attempts + 1 })
      ]
    }
  }
  // No side effect stands: nothing to undo.
  const failed: NewEvent = {
    type: "execution.failed",
    data: { ...ids(execution), error: result.error, retryable: false, status: carryOn ? "recovering" : record.status }
  }
  if (!carryOn) return settledWithoutEffect(at(record, now, { execution: null }), [failed], now)
  return {
    record: at(record, now, {
      status: "planning",
      execution: null,
      excludedOffers: [...record.excludedOffers, execution.offerId]
    }),
    events: [failed, step("replan", "planning", { ...ids(execution), excludedOffer: execution.offerId })]
  }
}

/** After an execution is settled with no side effect standing: a cancellation ends the Job. */
const settledWithoutEffect = (record: JobRecord, events: ReadonlyArray<NewEvent>, now: string): Change =>
  record.cancelling
    ? {
      record: at(record, now, { status: "cancelled", cancelling: false }),
      events: [...events, { type: "job.cancelled", data: { previousStatus: "recovering" } }]
    }
    : { record, events }

/** The Verifier's finding on an execution's side effect. */
export type Verification =
  | { readonly _tag: "Verified"; readonly inspection: Inspection }
  | { readonly _tag: "Mismatch"; readonly reason: string; readonly inspection: Inspection | null }

/** Compares what the provider says the key did with the proposal: same offer, currency, at most `spend`, terms kept. */
export const compare = (document: ProposalDocument, inspection: Inspection | null): Verification => {
  const mismatch = (reason: string): Verification => ({ _tag: "Mismatch", reason, inspection })
  if (inspection === null) return mismatch("the provider has no record of the execution")
  if (inspection.state !== "succeeded") return mismatch(`the provider reports the execution ${inspection.state}`)
  if (inspection.offerId !== document.offer.id) {
    return mismatch(`the provider carried out offer ${inspection.offerId}, not ${document.offer.id}`)
  }
  if (inspection.spent.currency !== document.spend.currency) {
    return mismatch(`the provider charged in ${inspection.spent.currency}, not ${document.spend.currency}`)
  }
  if (!atMost(inspection.spent, document.spend)) {
    return mismatch(`the provider charged ${inspection.spent.amount}, above the ${document.spend.amount} approved`)
  }
  if (
    inspection.terms.cancellable !== document.terms.cancellable
    || inspection.terms.cancellationFee.currency !== document.terms.cancellationFee.currency
    || units(inspection.terms.cancellationFee.amount) !== units(document.terms.cancellationFee.amount)
  ) return mismatch("the provider's terms are not the proposal's")
  return { _tag: "Verified", inspection }
}

/** Records the Verifier's finding: an Outcome and `completed`, or the side effect to be undone, then a new plan. */
export const verified = (
  record: JobRecord,
  number: number,
  provider: string,
  verification: Verification,
  now: string
): Change => {
  const execution = owned(record, number)
  if (execution === undefined || execution.phase !== "succeeded" || !wanted(record, execution)) {
    return noChange(record)
  }
  if (verification._tag === "Mismatch") {
    return {
      record: at(record, now, {
        status: "recovering",
        execution: { ...execution, phase: "undoing", undoReason: verification.reason }
      }),
      events: [{
        type: "verification.failed",
        data: { proposalHash: execution.proposalHash, reason: verification.reason, status: "recovering" }
      }]
    }
  }
  const { inspection } = verification
  const outcome: Outcome = {
    provider,
    reference: inspection.reference,
    spent: inspection.spent,
    verifiedAt: now,
    evidence: { ...inspection }
  }
  return {
    record: at(record, now, { status: "completed", execution: null, outcome }),
    events: [
      { type: "verification.succeeded", data: { proposalHash: execution.proposalHash, status: "verifying" } },
      { type: "job.completed", data: { outcome, status: "completed" } }
    ]
  }
}

/** What undoing an execution came to. */
export type Undo =
  | { readonly _tag: "Undone"; readonly hadEffect: boolean }
  | { readonly _tag: "Failed"; readonly error: string }

/**
 * Records the end of undoing an execution (cancelled with the provider, or found to have done nothing):
 * then a cancellation ends the Job, a failed verification re-plans without the offer, and a newer
 * revision simply goes on. An undo that failed after its retries fails the Job, naming what stands.
 */
export const undone = (record: JobRecord, number: number, undo: Undo, now: string): Change => {
  const execution = owned(record, number)
  // Only what the Job no longer wants, or what verification refused, is undone: an approval is consumed once.
  if (execution === undefined || (wanted(record, execution) && execution.phase !== "undoing")) return noChange(record)
  const what = execution.reference === null
    ? `execution ${execution.key}`
    : `${execution.reference} (key ${execution.key})`
  if (undo._tag === "Failed") {
    const reason = `Could not undo ${what}: ${undo.error}`
    return {
      record: at(record, now, { status: "failed", execution: null, cancelling: false }),
      events: [
        step("fail", "failed", { ...ids(execution), error: undo.error }),
        { type: "job.failed", data: { reason, status: "failed" } }
      ]
    }
  }
  const sameRevision = record.revision === execution.revision
  const replan = sameRevision && !record.cancelling && execution.undoReason !== null
  const status: JobStatus = record.cancelling ? "recovering" : replan ? "planning" : record.status
  const compensated = step("compensate", status, { ...ids(execution), undone: undo.hadEffect })
  const cleared = at(record, now, { execution: null })
  if (replan) {
    return {
      record: { ...cleared, status: "planning", excludedOffers: [...record.excludedOffers, execution.offerId] },
      events: [compensated, step("replan", "planning", { ...ids(execution), excludedOffer: execution.offerId })]
    }
  }
  return settledWithoutEffect(cleared, [compensated], now)
}

/** The execution a run must settle, if it owns one. */
export const ownedBy = (record: JobRecord, ref: RunRef): ExecutionState | undefined =>
  record.execution !== null && record.execution.revision === ref.revision && record.execution.run === ref.run
    ? record.execution
    : undefined

export const isCurrentRun = isCurrent
