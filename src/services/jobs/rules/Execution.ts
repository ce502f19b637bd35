import * as Schema from "effect/Schema"
import type { JobStatus } from "../../../schema/Job.ts"
import { atMost, equals, Money } from "../../../schema/Money.ts"
import type { Outcome, ProposalDocument } from "../../../schema/Proposal.ts"
import type { Inspection } from "../../providers/Provider.ts"
import type { Change, ExecutionState, JobRecord, NewEvent, RunRef } from "./JobRecord.ts"
import { closedProposal } from "./JobRecord.ts"

import { at, noChange, step } from "./JobRecord.ts"

/** The rules of an execution after its claim: the provider's answer, the verification's finding, the undo. */

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
      record: at(record, now, { status: "cancelled", cancelling: false, proposal: closedProposal(record) }),
      events: [...events, { type: "job.cancelled", data: { previousStatus: "recovering" } }]
    }
    : { record, events }

/** The verification's finding on an execution's side effect. */
export type Verification =
  | { readonly _tag: "Verified"; readonly inspection: Inspection }
  | { readonly _tag: "Mismatch"; readonly reason: string; readonly inspection: Inspection | null }

const isMoney = Schema.is(Money)

/** Compares what the provider says the key did with the proposal: same offer, currency, at most `spend`, terms kept. */
export const compare = (document: ProposalDocument, inspection: Inspection | null): Verification => {
  const mismatch = (reason: string): Verification => ({ _tag: "Mismatch", reason, inspection })
  if (inspection === null) return mismatch("the provider has no record of the execution")
  if (inspection.state !== "succeeded") return mismatch(`the provider reports the execution ${inspection.state}`)
  // An Outcome is stored only when the API can show it.
  if (!isMoney(inspection.spent)) return mismatch("the provider reports a charge that is not an amount of money")
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
    || !equals(inspection.terms.cancellationFee, document.terms.cancellationFee)
  ) return mismatch("the provider's terms are not the proposal's")
  return { _tag: "Verified", inspection }
}

/** Records the verification's finding: an Outcome and `completed`, or the side effect to be undone, then a new plan. */
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

/** What one attempt to undo an execution came to; a `Failed` one that is `final` is not tried again. */
export type Undo =
  | { readonly _tag: "Undone"; readonly hadEffect: boolean }
  | { readonly _tag: "Failed"; readonly error: string; readonly final: boolean }

/**
 * Records one attempt to undo an execution, each a `recovery.step` `compensate` naming its attempt.
 * Undone (cancelled with the provider, or found to have done nothing): a cancellation ends the Job, a
 * failed verification re-plans without the offer, and a newer revision simply goes on. A failed
 * attempt is retried (`retry`), at most `maxAttempts` in all; the last fails the Job, naming what stands.
 */
export const undone = (record: JobRecord, number: number, undo: Undo, now: string): Change => {
  const execution = owned(record, number)
  // Only what the Job no longer wants, or what verification refused, is undone: an approval is consumed once.
  if (execution === undefined || (wanted(record, execution) && execution.phase !== "undoing")) return noChange(record)
  const attempt = execution.undoAttempts + 1
  if (undo._tag === "Failed") {
    const tried = step("compensate", record.status, { ...ids(execution), attempt, undone: false, error: undo.error })
    if (!undo.final && attempt < maxAttempts) {
      return {
        record: at(record, now, { execution: { ...execution, undoAttempts: attempt } }),
        events: [tried, step("retry", record.status, { ...ids(execution), attempt: attempt + 1 })]
      }
    }
    const what = execution.reference === null
      ? `execution ${execution.key}`
      : `${execution.reference} (key ${execution.key})`
    const reason = `Could not undo ${what} after ${attempt} attempt${attempt === 1 ? "" : "s"}: ${undo.error}`
    // A newer revision may have presented a proposal meanwhile: `job.failed` supersedes it, as
    // `job.cancelled` does, so that no proposal of an ended Job stays open.
    return {
      record: at(record, now, {
        status: "failed",
        execution: null,
        cancelling: false,
        proposal: closedProposal(record)
      }),
      events: [
        tried,
        step("fail", "failed", {
          ...ids(execution),
          key: execution.key,
          reference: execution.reference,
          attempts: attempt,
          error: undo.error
        }),
        { type: "job.failed", data: { reason, status: "failed" } }
      ]
    }
  }
  const sameRevision = record.revision === execution.revision
  const replan = sameRevision && !record.cancelling && execution.undoReason !== null
  const status: JobStatus = record.cancelling ? "recovering" : replan ? "planning" : record.status
  const compensated = step("compensate", status, { ...ids(execution), attempt, undone: undo.hadEffect })
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
