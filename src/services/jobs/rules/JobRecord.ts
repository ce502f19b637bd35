import type { AccountId } from "../../../schema/ApiKey.ts"
import type { Constraint, Objective, Question } from "../../../schema/Constraint.ts"
import type { JobId, JobStatus } from "../../../schema/Job.ts"
import type { EventType } from "../../../schema/JobEvent.ts"
import type { Approval, Outcome, ProposalDocument, ProposalHash, ProposalStatus } from "../../../schema/Proposal.ts"
import type { Answer } from "../../interpreter/Interpretation.ts"

/** What the service keeps of a Job, and the background work it names (docs/API.md, "Operations"). */

/** The current revision's latest proposal, as the Job keeps it. */
export interface ProposalState {
  readonly hash: ProposalHash
  readonly status: ProposalStatus
  readonly document: ProposalDocument
}

/**
 * The Job's one execution in progress: claimed with a durable number (its provider key), owned by the
 * run that claimed it, which alone calls the provider for it, and kept until its side effect is
 * verified, known not to have happened, or undone, even when the Job has moved to a newer revision.
 */
export interface ExecutionState {
  readonly number: number
  readonly proposalHash: ProposalHash
  readonly offerId: string
  readonly key: string
  /** The revision it executes, and the run of that revision that owns it. */
  readonly revision: number
  readonly run: number
  /** `calling`: no answer known yet; `succeeded`: the side effect stands (`reference`); `undoing`: to compensate. */
  readonly phase: "calling" | "succeeded" | "undoing"
  readonly reference: string | null
  /** Provider answers that failed transiently (or did not come) so far. */
  readonly attempts: number
  /** Attempts to undo it that failed so far: each is a `recovery.step` `compensate`, then a `retry`. */
  readonly undoAttempts: number
  /** Why it is undone, when it is: a failed verification re-plans without its offer. */
  readonly undoReason: string | null
}

/** Everything the service keeps of a Job; the API shows it through `toView`. */
export interface JobRecord {
  readonly id: JobId
  readonly accountId: AccountId
  readonly revision: number
  readonly status: JobStatus
  readonly request: string
  readonly callerConstraints: ReadonlyArray<Constraint>
  readonly interpretedConstraints: ReadonlyArray<Constraint>
  readonly objective: Objective | null
  readonly questions: ReadonlyArray<Question>
  /** Every answer given, oldest first, with the question it answered. */
  readonly answers: ReadonlyArray<Answer>
  readonly proposal: ProposalState | null
  /** Offers this revision will not propose again (rejected, failed, or not as verified). */
  readonly excludedOffers: ReadonlyArray<string>
  /** Proposals decided (approved or rejected), each once. */
  readonly decided: ReadonlyArray<ProposalHash>
  /** The last execution number given; the next claim takes one more. */
  readonly executions: number
  readonly execution: ExecutionState | null
  /** Set by a cancellation that must first undo an execution. */
  readonly cancelling: boolean
  readonly outcome: Outcome | null
  /**
   * Which run of the revision does its work: a new one begins whenever the Job, having waited for a
   * person, has work again (an approval, a rejection, an expiry), so that a run ends when the Job waits.
   */
  readonly run: number
  readonly createdAt: string
  readonly updatedAt: string
}

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

/**
 * Part 1 kept fewer members: a record stored then reads with their starting values. An answer stored
 * before answers carried the revision they made has none, and the record cannot say which it was: it
 * reads as made by the record's revision, the latest it can have made, and is stored so from the next
 * change on (the interpreter then cites it with that revision).
 */
export const fromStored = (stored: unknown): JobRecord => {
  const read: JobRecord = { ...noWork, ...(stored as JobRecord) }
  // Records written before undo attempts were counted have none.
  const record: JobRecord = read.execution === null || read.execution.undoAttempts !== undefined
    ? read
    : { ...read, execution: { ...read.execution, undoAttempts: 0 } }
  const answers = record.answers as ReadonlyArray<Omit<Answer, "revision"> & { readonly revision?: number }>
  return answers.every((answer) => answer.revision !== undefined) ? record : {
    ...record,
    answers: answers.map((answer) => ({ ...answer, revision: answer.revision ?? record.revision }))
  }
}

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
