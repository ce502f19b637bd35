import type { Constraint } from "../../../schema/Constraint.ts"
import type { Job, JobStatus } from "../../../schema/Job.ts"
import type { JobEvent } from "../../../schema/JobEvent.ts"
import type { Outcome, ProposalDocument, ProposalStatus } from "../../../schema/Proposal.ts"
import type { Answer } from "../../interpreter/Interpretation.ts"

const callerOnly = (constraints: ReadonlyArray<Constraint>) =>
  constraints.filter((constraint) => constraint.source === "caller")

/**
 * The Job after `event`, from the Job before it (`undefined` before `job.created`): the view of a Job
 * at a position is the fold of its events up to there (docs/API.md, "Events and views"). Every change
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
    case "job.failed":
      return {
        ...job,
        ...at,
        status: event.type === "job.cancelled" ? "cancelled" : "failed",
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
    case "execution.started":
    case "execution.succeeded":
    case "execution.failed":
    case "verification.succeeded":
    case "verification.failed":
    case "recovery.step":
      return { ...job, ...at, status: status! }
    case "approval_link.created":
      return { ...job, ...at }
  }
}

/** `applyEvent` over `events`, in order, from `job`. */
export const fold = (job: Job | undefined, events: Iterable<JobEvent>): Job | undefined => {
  let current = job
  for (const event of events) current = applyEvent(current, event)
  return current
}
