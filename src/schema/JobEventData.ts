import * as Schema from "effect/Schema"
import { Constraint, Objective, Question } from "./Constraint.ts"
import { Instant, JobStatus } from "./Job.ts"
import type { EventType } from "./JobEvent.ts"
import { Money } from "./Money.ts"
import { Decision, Outcome, ProposalDocument, ProposalHash, ProposalStatus } from "./Proposal.ts"

/**
 * The `data` of each event type, as the service writes it (docs/API.md, "Event data"): what the OpenAPI
 * document publishes, one schema per `type`, and what the HTTP tests hold every event they receive to.
 * Members added after the first events were written are optional: older events lack them.
 */

const ExecutionNumber = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
const execution = { proposalHash: ProposalHash, executionNumber: ExecutionNumber }
const status = { status: Schema.optionalKey(JobStatus) }

const AnswerGiven = Schema.Struct({
  questionId: Schema.String,
  question: Schema.String,
  answer: Schema.String,
  revision: Schema.Int
})

export const eventData = {
  "job.created": Schema.Struct({ request: Schema.String, constraints: Schema.Array(Constraint) }),
  "job.revised": Schema.Union([
    Schema.Struct({ cause: Schema.Literal("constraints"), constraints: Schema.Array(Constraint) }),
    Schema.Struct({ cause: Schema.Literal("answers"), answers: Schema.Array(AnswerGiven) })
  ]),
  "work.invalidated": Schema.Struct({
    revision: Schema.Int,
    work: Schema.Literals(["interpretation", "execution"]),
    status: JobStatus,
    cause: Schema.optionalKey(Schema.Literal("cancel")),
    proposalHash: Schema.optionalKey(ProposalHash),
    executionNumber: Schema.optionalKey(ExecutionNumber),
    nextStatus: Schema.optionalKey(JobStatus)
  }),
  "job.interpreted": Schema.Struct({ objective: Objective, constraints: Schema.Array(Constraint) }),
  "job.input_requested": Schema.Struct({
    objective: Schema.NullOr(Objective),
    constraints: Schema.Array(Constraint),
    questions: Schema.Array(Question)
  }),
  "proposal.presented": Schema.Struct({
    proposalHash: ProposalHash,
    spend: Money,
    expiresAt: Instant,
    needsApproval: Schema.optionalKey(Schema.Boolean),
    proposalStatus: Schema.optionalKey(ProposalStatus),
    document: Schema.optionalKey(ProposalDocument),
    ...status
  }),
  "proposal.superseded": Schema.Struct({
    proposalHash: ProposalHash,
    reason: Schema.Literals(["revised", "expired", "rejected"]),
    proposalStatus: Schema.optionalKey(ProposalStatus),
    ...status
  }),
  "approval.recorded": Schema.Struct({
    approvalId: Schema.String,
    proposalHash: ProposalHash,
    decision: Decision,
    /** The key's id, or `link:{id}` for a decision made through an approval link. */
    decidedBy: Schema.optionalKey(Schema.String),
    proposalStatus: Schema.optionalKey(ProposalStatus),
    ...status
  }),
  "approval_link.created": Schema.Struct({ linkId: Schema.String, proposalHash: ProposalHash }),
  "execution.started": Schema.Struct({ ...execution, ...status }),
  "execution.succeeded": Schema.Struct({ ...execution, reference: Schema.String, ...status }),
  "execution.failed": Schema.Struct({ ...execution, error: Schema.String, retryable: Schema.Boolean, ...status }),
  "verification.succeeded": Schema.Struct({ proposalHash: ProposalHash, ...status }),
  "verification.failed": Schema.Struct({ proposalHash: ProposalHash, reason: Schema.String, ...status }),
  "recovery.step": Schema.Struct({
    action: Schema.Literals(["retry", "compensate", "replan", "ask", "fail"]),
    status: JobStatus,
    proposalHash: Schema.optionalKey(ProposalHash),
    executionNumber: Schema.optionalKey(ExecutionNumber),
    /** `retry`: the attempt about to be made; `compensate`: this attempt to undo. */
    attempt: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
    /** `compensate`: whether a side effect stood and was undone. */
    undone: Schema.optionalKey(Schema.Boolean),
    error: Schema.optionalKey(Schema.String),
    excludedOffer: Schema.optionalKey(Schema.String),
    /** `fail`: what could not be undone, after how many attempts. */
    key: Schema.optionalKey(Schema.String),
    reference: Schema.optionalKey(Schema.NullOr(Schema.String)),
    attempts: Schema.optionalKey(Schema.Int)
  }),
  "job.completed": Schema.Struct({ outcome: Outcome, ...status }),
  "job.failed": Schema.Struct({ reason: Schema.String, ...status }),
  "job.cancelled": Schema.Struct({ previousStatus: JobStatus })
} satisfies Record<EventType, Schema.Top>
