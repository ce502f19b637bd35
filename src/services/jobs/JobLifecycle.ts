import canonicalize from "canonicalize"
import { Result } from "effect"
import { randomBytes } from "node:crypto"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { Constraint, ConstraintInput, ConstraintSource, Objective, Question } from "../../schema/Constraint.ts"
import type {
  AnswerQuestionsRequest,
  ChangeConstraintsRequest,
  CreateJobRequest,
  Job,
  JobId,
  JobStatus
} from "../../schema/Job.ts"
import { isTerminal } from "../../schema/Job.ts"
import type { EventType, JobEvent } from "../../schema/JobEvent.ts"
import type {
  Approval,
  JobProposal,
  Outcome,
  ProposalDocument,
  ProposalHash,
  ProposalStatus
} from "../../schema/Proposal.ts"
import type { Answer, Interpretation, InterpretInput } from "../interpreter/Interpreter.ts"
import { RejectedInput, StaleRevision, WrongState } from "./JobErrors.ts"

/**
 * The rules of a Job's life (jobs.md, "States" and "Revisions, precisely") as pure functions from a
 * Job and a command to the Job after it and the events that say what happened. Both stores apply
 * exactly these, so they cannot disagree on the rules.
 */

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

/** RFC 8785 (JCS): equal constraints have equal text, whatever the order of their members. */
const canonicalJson = (value: unknown): string => canonicalize(value)!

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

/** What a new Job has of the work after its interpretation: nothing yet. */
const noWork = {
  proposal: null,
  excludedOffers: [],
  decided: [],
  executions: 0,
  execution: null,
  cancelling: false,
  outcome: null,
  run: 0
} as const

/** Part 1 kept fewer members: a record stored then reads with their starting values. */
export const fromStored = (stored: unknown): JobRecord => ({ ...noWork, ...(stored as JobRecord) })

/** A unit of background work: one run of one revision of a Job. */
export interface RunRef {
  readonly accountId: AccountId
  readonly jobId: JobId
  readonly revision: number
  readonly run: number
}

const workingStatuses: ReadonlySet<JobStatus> = new Set([
  "interpreting",
  "planning",
  "executing",
  "verifying",
  "recovering"
])

/**
 * The runs a Job needs: its current run while it has work of its own (it is not waiting for a person
 * and not ended), and the run that owns its execution, until that execution is settled.
 */
export const runsOf = (record: JobRecord): ReadonlyArray<RunRef> => {
  const runs: Array<RunRef> = []
  const ref = (revision: number, run: number) => ({ accountId: record.accountId, jobId: record.id, revision, run })
  if (workingStatuses.has(record.status)) runs.push(ref(record.revision, record.run))
  const execution = record.execution
  if (execution !== null && !(execution.revision === record.revision && execution.run === record.run)) {
    runs.push(ref(execution.revision, execution.run))
  }
  return runs
}

/** When the open proposal expires, if one is open. */
export const openUntil = (record: JobRecord): string | null =>
  record.status === "awaiting_approval" && record.proposal?.status === "open"
    ? record.proposal.document.expiresAt
    : null

const proposalView = (proposal: ProposalState): JobProposal => ({
  proposalHash: proposal.hash,
  status: proposal.status,
  document: proposal.document
})

export const newJobId = (): JobId => `job_${randomBytes(12).toString("hex")}` as JobId
const newConstraintId = () => `con_${randomBytes(8).toString("hex")}`

export const toView = (record: JobRecord): Job => ({
  id: record.id,
  jobRevision: record.revision,
  status: record.status,
  request: record.request,
  constraints: [...record.callerConstraints, ...record.interpretedConstraints],
  objective: record.objective,
  questions: record.questions,
  proposal: record.proposal === null ? null : proposalView(record.proposal),
  outcome: record.outcome,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt
})

const inputOf = ({ id: _id, source: _source, ...input }: Constraint): ConstraintInput => input as ConstraintInput

/**
 * Names constraints: one canonically equal to a constraint of `previous` keeps that one's id, so a
 * constraint that did not change keeps its name across revisions.
 */
const name = (
  inputs: ReadonlyArray<ConstraintInput>,
  source: ConstraintSource,
  previous: ReadonlyArray<Constraint> = []
): ReadonlyArray<Constraint> => {
  const available = previous.map((constraint) => ({ id: constraint.id, key: canonicalJson(inputOf(constraint)) }))
  return inputs.map((input) => {
    const key = canonicalJson(input)
    const match = available.findIndex((candidate) => candidate.key === key)
    const id = match === -1 ? newConstraintId() : available.splice(match, 1)[0]!.id
    return { ...input, id, source } as Constraint
  })
}

/** The same constraints, in any order. */
const sameConstraints = (a: ReadonlyArray<ConstraintInput>, b: ReadonlyArray<ConstraintInput>) => {
  const keys = (list: ReadonlyArray<ConstraintInput>) => list.map(canonicalJson).sort()
  return canonicalJson(keys(a)) === canonicalJson(keys(b))
}

const terminalState = (record: JobRecord) =>
  new WrongState({ message: `The Job is ${record.status}; it can no longer change.` })

const checkRevision = (record: JobRecord, jobRevision: number) =>
  jobRevision === record.revision ? undefined : new StaleRevision({
    message: `The Job is at revision ${record.revision}, not ${jobRevision}; read it again and retry.`
  })

/** What revision n had produced that a new revision sets aside. */
const invalidated = (record: JobRecord): NewEvent => ({
  type: "work.invalidated",
  data: { revision: record.revision, work: "interpretation", status: record.status }
})

/** A new revision that goes back to interpreting: what the last interpretation said is set aside. */
const reinterpret = (record: JobRecord, now: string): JobRecord => ({
  ...nextRevision(record, now),
  status: "interpreting",
  interpretedConstraints: [],
  objective: null,
  questions: []
})

/** A new revision: the last one's proposal and plans are set aside (its execution, if any, is undone by its run). */
const nextRevision = (record: JobRecord, now: string): JobRecord => ({
  ...record,
  revision: record.revision + 1,
  proposal: null,
  excludedOffers: [],
  run: 0,
  updatedAt: now
})

/** What a new revision sets aside besides the interpretation: an open proposal, an execution under way. */
const setAside = (record: JobRecord): ReadonlyArray<NewEvent> => [
  ...(record.proposal?.status === "open"
    ? [{
      type: "proposal.superseded" as const,
      data: { proposalHash: record.proposal.hash, reason: "revised", proposalStatus: "superseded" }
    }]
    : []),
  ...(record.execution !== null && record.execution.revision === record.revision
    ? [{
      type: "work.invalidated" as const,
      data: {
        revision: record.revision,
        work: "execution",
        status: record.status,
        proposalHash: record.execution.proposalHash,
        executionNumber: record.execution.number
      }
    }]
    : [])
]

export const create = (id: JobId, accountId: AccountId, input: CreateJobRequest, now: string): Change => {
  const callerConstraints = name(input.constraints, "caller")
  return {
    record: {
      id,
      accountId,
      revision: 1,
      status: "interpreting",
      request: input.request,
      callerConstraints,
      interpretedConstraints: [],
      objective: null,
      questions: [],
      answers: [],
      ...noWork,
      createdAt: now,
      updatedAt: now
    },
    events: [{ type: "job.created", data: { request: input.request, constraints: callerConstraints } }]
  }
}

/** Replaces the caller's constraints; equal ones (in any order) change nothing. */
export const changeConstraints = (
  record: JobRecord,
  input: ChangeConstraintsRequest,
  now: string
): Result.Result<Change, WrongState | StaleRevision> => {
  if (isTerminal(record.status)) return Result.fail(terminalState(record))
  const mismatch = checkRevision(record, input.jobRevision)
  if (mismatch !== undefined) return Result.fail(mismatch)
  if (sameConstraints(record.callerConstraints.map(inputOf), input.constraints)) {
    return Result.succeed({ record, events: [] })
  }
  const callerConstraints = name(input.constraints, "caller", record.callerConstraints)
  const next = { ...reinterpret(record, now), callerConstraints }
  return Result.succeed({
    record: next,
    events: [
      { type: "job.revised", data: { cause: "constraints", constraints: callerConstraints } },
      invalidated(record),
      ...setAside(record)
    ]
  })
}

/**
 * Answers open questions. All of them answered: a new revision that is interpreted again with every
 * answer given. Some of them: a new revision whose other questions stay open.
 */
export const answer = (
  record: JobRecord,
  input: AnswerQuestionsRequest,
  now: string
): Result.Result<Change, WrongState | RejectedInput | StaleRevision> => {
  if (isTerminal(record.status)) return Result.fail(terminalState(record))
  if (record.status !== "awaiting_input" || record.questions.length === 0) {
    return Result.fail(new WrongState({ message: `The Job is ${record.status}; it has no open question to answer.` }))
  }
  const ids = Object.keys(input.answers)
  if (ids.length === 0) {
    return Result.fail(new RejectedInput({ message: "answers must answer at least one open question." }))
  }
  const unknown = ids.find((id) => !record.questions.some((question) => question.id === id))
  if (unknown !== undefined) {
    return Result.fail(
      new RejectedInput({
        message: `answers.${unknown} names no open question; the open questions are ${
          record.questions.map((question) => question.id).join(", ")
        }.`
      })
    )
  }
  const mismatch = checkRevision(record, input.jobRevision)
  if (mismatch !== undefined) return Result.fail(mismatch)
  const given = record.questions.filter((question) => question.id in input.answers).map((question) => ({
    questionId: question.id,
    question: question.text,
    answer: input.answers[question.id]!
  }))
  const open = record.questions.filter((question) => !(question.id in input.answers))
  const answers = [...record.answers, ...given]
  const revised: NewEvent = { type: "job.revised", data: { cause: "answers", answers: given } }
  if (open.length > 0) {
    return Result.succeed({
      record: { ...nextRevision(record, now), questions: open, answers },
      events: [revised, ...setAside(record)]
    })
  }
  return Result.succeed({
    record: { ...reinterpret(record, now), answers },
    events: [revised, invalidated(record), ...setAside(record)]
  })
}

/**
 * Cancelling changes the status, not the revision. A Job whose execution may have had a side effect is
 * `recovering` first: the execution's run undoes it, then the Job is `cancelled`. Asking again while
 * that goes on changes nothing.
 */
export const cancel = (record: JobRecord, now: string): Result.Result<Change, WrongState> => {
  if (isTerminal(record.status)) return Result.fail(terminalState(record))
  if (record.cancelling) return Result.succeed({ record, events: [] })
  if (record.execution === null) {
    const proposal = record.proposal?.status === "open"
      ? { ...record.proposal, status: "superseded" as const }
      : record.proposal
    return Result.succeed({
      record: { ...record, proposal, status: "cancelled", updatedAt: now },
      // `job.cancelled` says all it changes: an open proposal is superseded with it.
      events: [{ type: "job.cancelled", data: { previousStatus: record.status } }]
    })
  }
  return Result.succeed({
    record: { ...record, status: "recovering", cancelling: true, updatedAt: now },
    events: [{
      type: "work.invalidated",
      data: {
        revision: record.revision,
        work: "execution",
        status: record.status,
        cause: "cancel",
        proposalHash: record.execution.proposalHash,
        executionNumber: record.execution.number,
        nextStatus: "recovering"
      }
    }]
  })
}

/** What the interpreter is given for the Job's current revision. */
export const interpretInput = (record: JobRecord): Omit<InterpretInput, "createdAt"> => ({
  request: record.request,
  constraints: record.callerConstraints.map(inputOf),
  answers: record.answers
})

/**
 * The interpreter's reading of `revision`. A reading of a revision the Job has left, or of a Job no
 * longer interpreting (cancelled meanwhile), changes nothing: it is work of an older revision.
 */
export const interpreted = (
  record: JobRecord,
  revision: number,
  interpretation: Interpretation,
  now: string
): Change => {
  if (record.revision !== revision || record.status !== "interpreting") return { record, events: [] }
  const interpretedConstraints = name(interpretation.constraints, "interpreted")
  if (interpretation._tag === "Understood" || interpretation.questions.length === 0) {
    const objective = interpretation.objective
    if (objective === null) throw new Error("the interpreter asked no question and named no objective")
    return {
      record: { ...record, status: "planning", objective, interpretedConstraints, questions: [], updatedAt: now },
      events: [{ type: "job.interpreted", data: { objective, constraints: interpretedConstraints } }]
    }
  }
  const { objective, questions } = interpretation
  return {
    record: { ...record, status: "awaiting_input", objective, interpretedConstraints, questions, updatedAt: now },
    events: [{ type: "job.input_requested", data: { objective, constraints: interpretedConstraints, questions } }]
  }
}

const callerOnly = (constraints: ReadonlyArray<Constraint>) =>
  constraints.filter((constraint) => constraint.source === "caller")

/**
 * The Job after `event`, from the Job before it (`undefined` before `job.created`): the view of a Job
 * at a position is the fold of its events up to there (jobs.md, "Events and views"). Every change
 * above writes events that say all it changed, so that this fold gives exactly `toView` of the
 * change's record (held by a property test).
 */
export const applyEvent = (job: Job | undefined, event: JobEvent): Job => {
  const data = event.data as Record<string, never>
  const at = { jobRevision: event.jobRevision, updatedAt: event.occurredAt }
  if (event.type === "job.created") {
    return {
      id: event.jobId,
      jobRevision: event.jobRevision,
      status: "interpreting",
      request: data.request,
      constraints: data.constraints,
      objective: null,
      questions: [],
      proposal: null,
      outcome: null,
      createdAt: event.occurredAt,
      updatedAt: event.occurredAt
    }
  }
  const status = (data.status as JobStatus | undefined) ?? job?.status
  if (job === undefined) throw new Error(`${event.type} at ${event.position} has no job.created before it`)
  switch (event.type) {
    case "job.revised": {
      const revised = { ...job, ...at, proposal: null }
      if (data.cause === "constraints") {
        return { ...revised, status: "interpreting", constraints: data.constraints, objective: null, questions: [] }
      }
      const answered = new Set((data.answers as ReadonlyArray<Answer>).map((answer) => answer.questionId))
      const open = job.questions.filter((question) => !answered.has(question.id))
      return open.length > 0
        ? { ...revised, questions: open }
        : {
          ...revised,
          status: "interpreting",
          constraints: callerOnly(job.constraints),
          objective: null,
          questions: []
        }
    }
    case "job.interpreted":
    case "job.input_requested":
      return {
        ...job,
        ...at,
        status: event.type === "job.interpreted" ? "planning" : "awaiting_input",
        constraints: [...callerOnly(job.constraints), ...data.constraints],
        objective: data.objective,
        questions: event.type === "job.interpreted" ? [] : data.questions
      }
    case "job.cancelled":
      return {
        ...job,
        ...at,
        status: "cancelled",
        proposal: job.proposal?.status === "open" ? { ...job.proposal, status: "superseded" } : job.proposal
      }
    case "work.invalidated":
      return { ...job, ...at, status: (data.nextStatus as JobStatus | undefined) ?? job.status }
    case "proposal.presented": {
      const document = data.document as ProposalDocument
      return {
        ...job,
        ...at,
        status: status!,
        proposal: { proposalHash: data.proposalHash, status: data.proposalStatus, document }
      }
    }
    case "proposal.superseded":
    case "approval.recorded": {
      const proposal = job.proposal?.proposalHash === data.proposalHash
        ? { ...job.proposal, status: data.proposalStatus as ProposalStatus }
        : job.proposal
      return { ...job, ...at, status: status!, proposal }
    }
    case "job.completed":
      return { ...job, ...at, status: "completed", outcome: data.outcome as Outcome }
    case "job.failed":
      return { ...job, ...at, status: "failed" }
    case "execution.started":
    case "execution.succeeded":
    case "execution.failed":
    case "verification.succeeded":
    case "verification.failed":
    case "recovery.step":
      return { ...job, ...at, status: status! }
  }
}

/** `applyEvent` over `events`, in order, from `job`. */
export const fold = (job: Job | undefined, events: Iterable<JobEvent>): Job | undefined => {
  let current = job
  for (const event of events) current = applyEvent(current, event)
  return current
}
