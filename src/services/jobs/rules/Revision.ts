import * as DateTime from "effect/DateTime"
import * as Result from "effect/Result"
import { randomBytes } from "node:crypto"
import type { AccountId } from "../../../schema/ApiKey.ts"
import type { Constraint, ConstraintInput, ConstraintSource } from "../../../schema/Constraint.ts"
import type {
  AnswerQuestionsRequest,
  ChangeConstraintsRequest,
  CreateJobRequest,
  Job,
  JobId,
  JobStatus
} from "../../../schema/Job.ts"
import { isTerminal } from "../../../schema/Job.ts"
import type { JobProposal } from "../../../schema/Proposal.ts"
import type { Interpretation, InterpretedConstraint, InterpretInput } from "../../interpreter/Interpretation.ts"
import { canonicalJson } from "../../text/CanonicalJson.ts"
import { RejectedInput, StaleRevision, WrongState } from "./JobErrors.ts"

import type { Change, JobRecord, NewEvent, ProposalState, RunRef } from "./JobRecord.ts"
import { closedProposal, noWork } from "./JobRecord.ts"

/**
 * The rules of a Job's life (docs/API.md, "Operations") as pure functions from a
 * Job and a command to the Job after it and the events that say what happened. Both stores apply
 * exactly these, so they cannot disagree on the rules.
 */

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

/** What a caller would send for the constraint: the server's members (its name, source and evidence) aside. */
const inputOf = ({ evidence: _evidence, id: _id, source: _source, ...input }: Constraint): ConstraintInput =>
  input as ConstraintInput

/**
 * Names constraints: one canonically equal to a constraint of `previous` keeps that one's id, so a
 * constraint that did not change keeps its name across revisions. An interpreted constraint keeps the
 * words it was read from (`evidence`), which play no part in its name.
 */
const name = (
  inputs: ReadonlyArray<ConstraintInput | InterpretedConstraint>,
  source: ConstraintSource,
  previous: ReadonlyArray<Constraint> = []
): ReadonlyArray<Constraint> => {
  const available = previous.map((constraint) => ({ id: constraint.id, key: canonicalJson(inputOf(constraint)) }))
  return inputs.map((input) => {
    const { evidence: _evidence, ...meaning } = input as InterpretedConstraint
    const key = canonicalJson(meaning)
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
  // Either way the answers make the next revision, by which the evidence of a fact read from them points into them.
  const given = record.questions.filter((question) => question.id in input.answers).map((question) => ({
    questionId: question.id,
    question: question.text,
    answer: input.answers[question.id]!,
    revision: record.revision + 1
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
    return Result.succeed({
      record: { ...record, proposal: closedProposal(record), status: "cancelled", updatedAt: now },
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
export const interpretInput = (record: JobRecord): InterpretInput => ({
  request: record.request,
  createdAt: DateTime.makeUnsafe(record.createdAt),
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
