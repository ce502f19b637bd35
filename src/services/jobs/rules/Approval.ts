import * as Result from "effect/Result"
import { randomBytes } from "node:crypto"
import type { JobStatus } from "../../../schema/Job.ts"
import type { Approval, ApprovalId, ApprovalRequest, ProposalHash } from "../../../schema/Proposal.ts"
import { executionKey } from "../../providers/Provider.ts"
import { ProposalLapsed, ProposalNotOpen, StaleRevision, WrongState } from "./JobErrors.ts"
import type { Change, ExecutionState, JobRecord, NewEvent, ProposalState, RunRef } from "./JobRecord.ts"
import { at, isCurrent, noChange } from "./JobRecord.ts"
import { expired } from "./Proposal.ts"

/**
 * What a decision on a proposal decides (docs/API.md, "Proposals, approvals, execution"): whether it
 * may be made, what it records, and the claim by which an approved proposal becomes an execution.
 */

export const newApprovalId = (): ApprovalId => `apr_${randomBytes(12).toString("hex")}` as ApprovalId

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
