import { assert } from "@effect/vitest"
import type { Job, JobId } from "../../src/schema/Job.ts"
import type { JobEvent } from "../../src/schema/JobEvent.ts"
import * as Interpreter from "../../src/services/interpreter/Interpreter.ts"
import type { Interpretation, InterpretInput } from "../../src/services/interpreter/Interpreter.ts"
import { maxAttempts as maxUndoAttempts } from "../../src/services/jobs/rules/Execution.ts"
import type { Directive, LedgerEntry } from "../../src/services/providers/Sandbox.ts"

/**
 * The model of a Job: what the service must answer to each command, and what its runner must then do
 * with it (the events it appends and where it leaves the Job), with the sandbox's faults; and the
 * design's invariants over a history and the sandbox's ledger. Shared by the model-based tests over
 * the services (test/model) and over HTTP (test/JobsModel.test.ts).
 */

// The interpreter, scripted by request: a Job asks its questions until every one is answered, then plans.
export const questionsOf = { "Plan it": [], "Ask once": ["q_date"], "Ask twice": ["q_date", "q_time"] } as const
export type Kind = keyof typeof questionsOf
export const kinds = Object.keys(questionsOf) as ReadonlyArray<Kind>

const interpret = (questions: ReadonlyArray<string>) => (input: InterpretInput): Interpretation => {
  const answered = new Set(input.answers.map((answer) => answer.questionId))
  const open = questions.filter((id) => !answered.has(id))
  const objective = { kind: "reservation" as const, summary: "A table" }
  return open.length === 0
    ? { _tag: "Understood", objective, constraints: [] }
    : {
      _tag: "NeedsInput",
      objective,
      constraints: [],
      questions: open.map((id) => ({ id, text: `What ${id.slice(2)}?` }))
    }
}

export const scripted = Interpreter.layerScripted(
  Object.fromEntries(kinds.map((kind) => [kind, interpret(questionsOf[kind])]))
)

/** The sandbox quotes three offers for these requests (no budget): a fourth plan finds none left. */
export const offers = 3

/** The question a Job asks when no offer is left. */
export const noOffersQuestion = "q_offers"

/** Notes that are not directives, so that constraints can change without changing what the sandbox does. */
export const plainNotes = ["quiet table", "window seat", "no stairs"] as const

export const directiveNote = (directive: Directive) => `sandbox:${directive}`

export const directivesOf = (notes: ReadonlyArray<string>): ReadonlySet<Directive> =>
  new Set(notes.filter((text) => text.startsWith("sandbox:")).map((text) => text.slice(8) as Directive))

/** What the model knows of a Job. */
export interface JobModel {
  readonly id: JobId
  readonly kind: Kind
  readonly revision: number
  readonly status: Job["status"]
  /** The caller's constraints: notes, some of them sandbox directives. */
  readonly notes: ReadonlyArray<string>
  /** Questions answered in any revision (the interpreter is given every answer). */
  readonly answered: ReadonlyArray<string>
  /** The open questions, while it waits for input. */
  readonly open: ReadonlyArray<string>
  /** The current revision's latest proposal, and every proposal decided (a proposal is decided once). */
  readonly proposal: string | null
  readonly decided: ReadonlyArray<string>
  /** Offers this revision will not propose again: the proposed offer is the first of the others. */
  readonly excluded: number
}

/** A Job just created: revision 1, interpreting. */
export const newJob = (id: JobId, kind: Kind, notes: ReadonlyArray<string>): JobModel => ({
  id,
  kind,
  revision: 1,
  status: "interpreting",
  notes,
  answered: [],
  open: [],
  proposal: null,
  decided: [],
  excluded: 0
})

/** How a decision is made: right, at another revision, of another hash, or a second one on a decided proposal. */
export type Variant = "right" | "stale" | "mismatched" | "twice"

/**
 * The Job a decision is about and the hash it names: mostly a Job waiting for a decision, when there is
 * one, since that is where decisions matter.
 */
export const decisionTarget = <
  J extends {
    readonly status: Job["status"]
    readonly decided: ReadonlyArray<string>
    readonly proposal: string | null
  }
>(jobs: ReadonlyArray<J>, index: number, variant: Variant) => {
  const pick = (items: ReadonlyArray<J>) => items[index % items.length]!
  const waiting = jobs.filter((candidate) => candidate.status === "awaiting_approval")
  const job = variant !== "twice" && waiting.length > 0 && index % 4 !== 0 ? pick(waiting) : pick(jobs)
  const twice = variant === "twice" && job.decided.length > 0
  const hash = variant === "mismatched"
    ? `sha256:${"0".repeat(64)}`
    : twice
    ? job.decided.at(-1)!
    : job.proposal ?? `sha256:${"1".repeat(64)}`
  return { job, twice, hash }
}

export const isTerminal = (status: Job["status"]) =>
  status === "completed" || status === "failed" || status === "cancelled"

/** Statuses in which the runner moves a Job on by itself. */
export const working: ReadonlyArray<Job["status"]> = [
  "interpreting",
  "planning",
  "executing",
  "verifying",
  "recovering"
]

export interface Prediction {
  readonly events: ReadonlyArray<string>
  readonly job: JobModel
}

/**
 * What the runner appends for a Job the model left working, and where it leaves it, with the
 * sandbox's directives: deterministic, one step after the other, when nothing else happens meanwhile.
 * (docs/API.md's table of directives; `permanent` and `verify-mismatch` concern the first offer only,
 * `transient-once` and `timeout-once` the first execute of each key.)
 */
export const runnerWork = (start: JobModel): Prediction => {
  const wants = directivesOf(start.notes)
  const events: Array<string> = []
  let job = start
  for (let step = 0; step < 50; step++) {
    switch (job.status) {
      case "interpreting": {
        const open = questionsOf[job.kind].filter((id) => !job.answered.includes(id))
        if (open.length > 0) {
          events.push("job.input_requested")
          return { events, job: { ...job, status: "awaiting_input", open } }
        }
        events.push("job.interpreted")
        job = { ...job, status: "planning", open: [] }
        break
      }
      case "planning": {
        if (wants.has("no-offers") || job.excluded >= offers) {
          if (job.excluded > 0) events.push("recovery.step:ask")
          events.push("job.input_requested")
          return { events, job: { ...job, status: "awaiting_input", open: [noOffersQuestion] } }
        }
        events.push("proposal.presented")
        // Free offers need no authority: executed at once.
        job = { ...job, status: wants.has("free") ? "executing" : "awaiting_approval" }
        if (job.status === "awaiting_approval") return { events, job }
        break
      }
      case "executing": {
        const firstOffer = job.excluded === 0
        events.push("execution.started")
        if (wants.has("permanent") && firstOffer) {
          events.push("execution.failed", "recovery.step:replan")
          job = { ...job, status: "planning", excluded: job.excluded + 1 }
          break
        }
        if (wants.has("transient-once")) events.push("execution.failed", "recovery.step:retry")
        // `timeout-once`: the answer is lost, and the key inspected finds the side effect.
        events.push("execution.succeeded")
        if (wants.has("verify-mismatch") && firstOffer) {
          events.push("verification.failed")
          if (wants.has("cancel-fails")) {
            // Every attempt to undo is an event: each fails, the last one fails the Job.
            for (let attempt = 1; attempt < maxUndoAttempts; attempt++) {
              events.push("recovery.step:compensate", "recovery.step:retry")
            }
            events.push("recovery.step:compensate", "recovery.step:fail", "job.failed")
            return { events, job: { ...job, status: "failed" } }
          }
          events.push("recovery.step:compensate", "recovery.step:replan")
          job = { ...job, status: "planning", excluded: job.excluded + 1 }
          break
        }
        events.push("verification.succeeded", "job.completed")
        return { events, job: { ...job, status: "completed" } }
      }
      default:
        return { events, job }
    }
  }
  throw new Error(`the model's runner did not settle ${JSON.stringify(start)}`)
}

/** The Job after a change that begins a new revision and goes back to interpreting. */
export const reinterpreting = (job: JobModel, changes: Partial<JobModel>): JobModel => ({
  ...job,
  ...changes,
  revision: job.revision + 1,
  status: "interpreting",
  open: [],
  proposal: null,
  excluded: 0
})

/** The same notes, in any order (constraints are compared as a multiset). */
export const sameNotes = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  [...a].sort().join("\n") === [...b].sort().join("\n")

/** Events as the model names them: a recovery step with its action. */
export const nameOf = (event: JobEvent) =>
  event.type === "recovery.step" ? `recovery.step:${String(event.data.action)}` : event.type

/**
 * `events` without the pairs a transient failure records (`execution.failed` that is retryable, then
 * `recovery.step:retry`): a restart between the failed call and its record calls again with the same
 * key, and the sandbox then answers, so that the pair may be missing.
 */
export const withoutRetries = (events: ReadonlyArray<string>) => {
  const kept: Array<string> = []
  for (const name of events) {
    if (name === "recovery.step:retry" && kept.at(-1) === "execution.failed") kept.pop()
    else kept.push(name)
  }
  return kept
}

type Data = Record<string, never>
interface Money {
  readonly amount: string
  readonly currency: string
}
const cents = (money: Money) => Math.round(Number(money.amount) * 100)

/**
 * The design's invariants over one account's history: revisions grow by one per change and never go
 * back; nothing follows a terminal event; a decision concerns a proposal of its revision, once; no
 * execution without an approval (or a free proposal) of the current revision's proposal, consumed by
 * it alone, with durable numbers 1, 2, ...; at most one successful execution per proposal; no Outcome
 * without a verification of the proposal executed; never more spent than approved.
 */
export const checkHistory = (log: ReadonlyArray<JobEvent>) => {
  const byJob = new Map<string, Array<JobEvent>>()
  for (const event of log) byJob.set(event.jobId, [...(byJob.get(event.jobId) ?? []), event])
  for (const [id, events] of byJob) {
    const presented = new Map<string, { readonly spend: Money; readonly revision: number }>()
    const approved = new Set<string>()
    const decided = new Set<string>()
    const consumed = new Set<string>()
    const succeeded = new Map<string, string>()
    const verified = new Set<string>()
    let revision = 0
    let executions = 0
    let lastExecuted: string | undefined
    let ended: string | undefined
    for (const event of events) {
      const where = `${id}: ${event.type} at ${event.position}`
      const data = event.data as Data
      assert.isUndefined(ended, `${where} after ${ended}`)
      if (event.type === "job.created") assert.strictEqual(event.jobRevision, 1, where)
      else if (event.type === "job.revised") assert.strictEqual(event.jobRevision, revision + 1, `${where}: one more`)
      else assert.strictEqual(event.jobRevision, revision, `${where}: the same revision`)
      revision = event.jobRevision
      switch (event.type) {
        case "proposal.presented":
          presented.set(data.proposalHash, { spend: data.spend, revision })
          if (data.needsApproval === false) approved.add(data.proposalHash)
          break
        case "approval.recorded":
          assert.strictEqual(presented.get(data.proposalHash)?.revision, revision, `${where}: of its revision`)
          assert.isFalse(decided.has(data.proposalHash), `${where}: decided twice`)
          decided.add(data.proposalHash)
          if (data.decision === "approve") approved.add(data.proposalHash)
          break
        case "execution.started":
          assert.isTrue(approved.has(data.proposalHash), `${where}: without an approval`)
          assert.isFalse(consumed.has(data.proposalHash), `${where}: an approval consumed twice`)
          assert.strictEqual(presented.get(data.proposalHash)?.revision, revision, `${where}: an older proposal`)
          assert.strictEqual(data.executionNumber, ++executions, `${where}: durable numbers`)
          consumed.add(data.proposalHash)
          lastExecuted = data.proposalHash
          break
        case "execution.succeeded":
          assert.isTrue(consumed.has(data.proposalHash), `${where}: never started`)
          assert.isFalse(succeeded.has(data.proposalHash), `${where}: two successful executions`)
          succeeded.set(data.proposalHash, data.reference)
          break
        case "verification.succeeded":
          assert.isTrue(succeeded.has(data.proposalHash), `${where}: nothing to verify`)
          verified.add(data.proposalHash)
          break
        case "job.completed": {
          assert.isTrue(lastExecuted !== undefined && verified.has(lastExecuted), `${where}: not verified`)
          const outcome = data.outcome as { readonly spent: Money; readonly reference: string }
          const spend = presented.get(lastExecuted!)!.spend
          assert.strictEqual(outcome.spent.currency, spend.currency, where)
          assert.isAtMost(cents(outcome.spent), cents(spend), `${where}: spent above the approval`)
          assert.strictEqual(outcome.reference, succeeded.get(lastExecuted!), `${where}: the reference executed`)
          ended = event.type
          break
        }
        case "job.cancelled":
        case "job.failed":
          ended = event.type
      }
    }
  }
}

/**
 * The sandbox's ledger for a Job that has no work left: a side effect per key at most, every key one
 * of an execution the Job started; and what stands is exactly the Outcome's for a completed Job, the
 * one its `job.failed` names for a failed Job (an undo that could not be done), and nothing otherwise
 * (cancelled, or waiting for a person: every other effect was undone).
 */
export const checkLedger = (job: Job, events: ReadonlyArray<JobEvent>, entries: ReadonlyArray<LedgerEntry>) => {
  const started = new Set(
    events.filter((event) => event.type === "execution.started").map((event) =>
      `${job.id}:${String(event.data.proposalHash)}:${String(event.data.executionNumber)}`
    )
  )
  for (const entry of entries) {
    assert.isAtMost(entry.effects, 1, `${entry.key}: one side effect per key`)
    assert.isTrue(started.has(entry.key), `${entry.key}: a key of no execution`)
  }
  const standing = entries.filter((entry) => entry.effects > 0 && entry.state !== "compensated")
  const where = `${job.id} (${job.status}): standing ${JSON.stringify(standing)}`
  if (job.status === "completed") {
    assert.strictEqual(standing.length, 1, where)
    assert.strictEqual(standing[0]!.key, (job.outcome!.evidence as { readonly key: string }).key, where)
  } else if (job.status === "failed") {
    assert.strictEqual(standing.length, 1, where)
    const reason = String(events.find((event) => event.type === "job.failed")?.data.reason)
    assert.include(reason, standing[0]!.key, where)
  } else {
    assert.strictEqual(standing.length, 0, where)
  }
}

/**
 * Every `cancel` sent for an execution has its `recovery.step` `compensate`: an attempt that failed
 * (every call of the model's provider that fails is a cancel) or that undid a side effect still
 * standing. `exact` unless the runner was restarted while it worked: a cancel may then have been sent
 * again, or found its side effect already undone, with one event for the two.
 */
export const checkCancels = (
  events: ReadonlyArray<JobEvent>,
  entries: ReadonlyArray<LedgerEntry>,
  cancels: ReadonlyMap<string, number>,
  exact: boolean
) => {
  for (const entry of entries) {
    const number = Number(entry.key.slice(entry.key.lastIndexOf(":") + 1))
    const attempts = events.filter((event) =>
      event.type === "recovery.step" && event.data.action === "compensate" && event.data.executionNumber === number
    )
    const failed = attempts.filter((event) => event.data.error !== undefined).length
    const tried = failed + attempts.filter((event) => event.data.undone === true).length
    const sent = cancels.get(entry.key) ?? 0
    if (exact) assert.strictEqual(sent, tried, `${entry.key}: every cancel has its event`)
    else assert.isAtLeast(sent, failed, `${entry.key}: a failed attempt to undo with no cancel sent`)
  }
}
