import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import { AccountId } from "../../../schema/ApiKey.ts"
import { Constraint, Objective, Question } from "../../../schema/Constraint.ts"
import { Instant, JobId, JobRevision, JobStatus } from "../../../schema/Job.ts"
import type { EventType } from "../../../schema/JobEvent.ts"
import type { Approval } from "../../../schema/Proposal.ts"
import { Outcome, ProposalDocument, ProposalHash, ProposalStatus } from "../../../schema/Proposal.ts"

/** What the service keeps of a Job, and the background work it names (docs/API.md, "Operations"). */

/** The current revision's latest proposal, as the Job keeps it. */
export const ProposalState = Schema.Struct({
  hash: ProposalHash,
  status: ProposalStatus,
  document: ProposalDocument
})
export type ProposalState = typeof ProposalState.Type

/**
 * The Job's one execution in progress: claimed with a durable number (its provider key), owned by the
 * run that claimed it, which alone calls the provider for it, and kept until its side effect is
 * verified, known not to have happened, or undone, even when the Job has moved to a newer revision.
 */
export const ExecutionState = Schema.Struct({
  number: Schema.Int,
  proposalHash: ProposalHash,
  offerId: Schema.String,
  key: Schema.String,
  /** The revision it executes, and the run of that revision that owns it. */
  revision: JobRevision,
  run: Schema.Int,
  /** `calling`: no answer known yet; `succeeded`: the side effect stands (`reference`); `undoing`: to compensate. */
  phase: Schema.Literals(["calling", "succeeded", "undoing"]),
  reference: Schema.NullOr(Schema.String),
  /** Provider answers that failed transiently (or did not come) so far. */
  attempts: Schema.Int,
  /**
   * Attempts to undo it that failed so far: each is a `recovery.step` `compensate`, then a `retry`.
   * Records written before undo attempts were counted have none.
   */
  undoAttempts: Schema.Int.pipe(Schema.withDecodingDefaultKey(Effect.succeed(0))),
  /** Why it is undone, when it is: a failed verification re-plans without its offer. */
  undoReason: Schema.NullOr(Schema.String)
})
export type ExecutionState = typeof ExecutionState.Type

/** An answer as the Job keeps it (the interpreter's `Answer`). */
const Answer = Schema.Struct({
  questionId: Schema.String,
  question: Schema.String,
  answer: Schema.String,
  /** The revision this answer made: the evidence of a fact read from it points into it by this number. */
  revision: JobRevision
})

/**
 * Everything the service keeps of a Job; the API shows it through `toView`. A stored record may lack
 * the members of the Job's work: each reads with its starting value, `noWork`'s.
 */
export const JobRecord = Schema.Struct({
  id: JobId,
  accountId: AccountId,
  revision: JobRevision,
  status: JobStatus,
  request: Schema.String,
  callerConstraints: Schema.Array(Constraint),
  interpretedConstraints: Schema.Array(Constraint),
  objective: Schema.NullOr(Objective),
  questions: Schema.Array(Question),
  /** Every answer given, oldest first, with the question it answered. */
  answers: Schema.Array(Answer),
  proposal: Schema.NullOr(ProposalState).pipe(Schema.withDecodingDefaultKey(Effect.sync(() => noWork.proposal))),
  /** Offers this revision will not propose again (rejected, failed, or not as verified). */
  excludedOffers: Schema.Array(Schema.String).pipe(
    Schema.withDecodingDefaultKey(Effect.sync(() => noWork.excludedOffers))
  ),
  /** Proposals decided (approved or rejected), each once. */
  decided: Schema.Array(ProposalHash).pipe(Schema.withDecodingDefaultKey(Effect.sync(() => noWork.decided))),
  /** The last execution number given; the next claim takes one more. */
  executions: Schema.Int.pipe(Schema.withDecodingDefaultKey(Effect.sync(() => noWork.executions))),
  execution: Schema.NullOr(ExecutionState).pipe(Schema.withDecodingDefaultKey(Effect.sync(() => noWork.execution))),
  /** Set by a cancellation that must first undo an execution. */
  cancelling: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.sync(() => noWork.cancelling))),
  outcome: Schema.NullOr(Outcome).pipe(Schema.withDecodingDefaultKey(Effect.sync(() => noWork.outcome))),
  /**
   * Which run of the revision does its work: a new one begins whenever the Job, having waited for a
   * person, has work again (an approval, a rejection, an expiry), so that a run ends when the Job waits.
   */
  run: Schema.Int.pipe(Schema.withDecodingDefaultKey(Effect.sync(() => noWork.run))),
  createdAt: Instant,
  updatedAt: Instant
})
export type JobRecord = typeof JobRecord.Type

/**
 * A record as `jobs.record` holds it: JSON, as older versions wrote it too. An answer stored before
 * answers carried the revision they made has none, and the record cannot say which it was: it reads as
 * made by the record's revision, the latest it can have made, and is stored so from the next change on
 * (the interpreter then cites it with that revision).
 */
export const StoredJobRecord = Schema.fromJsonString(
  Schema.Struct({
    ...JobRecord.fields,
    answers: Schema.Array(Schema.Struct({ ...Answer.fields, revision: Schema.optionalKey(JobRevision) }))
  }).pipe(Schema.decodeTo(
    Schema.toType(JobRecord),
    SchemaTransformation.transform({
      decode: (stored): JobRecord => ({
        ...stored,
        answers: stored.answers.map((answer) => ({ ...answer, revision: answer.revision ?? stored.revision }))
      }),
      encode: (record) => record
    })
  ))
)

/** A proposal stored once, as the canonical bytes its hash names. */
export interface StoredProposal {
  readonly hash: ProposalHash
  readonly bytes: string
  readonly createdAt: string
}

/** An event before the store gives it a position. */
export interface NewEvent {
  readonly type: EventType
  readonly data: Readonly<Record<string, unknown>>
}

/** A Job after a command, and what happened; no event means nothing changed. */
export interface Change {
  readonly record: JobRecord
  readonly events: ReadonlyArray<NewEvent>
  /** Written in the same transaction: a proposal presented, a decision recorded, an approval consumed. */
  readonly proposal?: StoredProposal | undefined
  readonly approval?: Approval | undefined
  readonly consumes?: ProposalHash | undefined
}

/** The Job's proposal once the Job is cancelled or failed: `job.cancelled` or `job.failed` supersedes an open one. */
export const closedProposal = (record: JobRecord): JobRecord["proposal"] =>
  record.proposal?.status === "open" ? { ...record.proposal, status: "superseded" } : record.proposal

/** What a new Job has of the work after its interpretation: nothing yet. */
export const noWork = {
  proposal: null,
  excludedOffers: [],
  decided: [],
  executions: 0,
  execution: null,
  cancelling: false,
  outcome: null,
  run: 0
} as const

/** A unit of background work: one run of one revision of a Job. */
export interface RunRef {
  readonly accountId: AccountId
  readonly jobId: JobId
  readonly revision: number
  readonly run: number
}

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
