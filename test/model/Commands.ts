import { assert } from "@effect/vitest"
import fc from "fast-check"
import { createHash } from "node:crypto"
import type { ProposalHash } from "../../src/schema/Proposal.ts"
import { directives } from "../../src/services/providers/Sandbox.ts"
import type { Model, Real } from "./Driver.ts"
import { attempt, before, expectChange, expectRefused, expectSuccess, newEvents, pick, run } from "./Driver.ts"
import type { JobModel, Kind, Variant } from "./Model.ts"
import {
  decisionTarget,
  directiveNote,
  directivesOf,
  isTerminal,
  kinds,
  newJob,
  plainNotes,
  reinterpreting,
  sameNotes
} from "./Model.ts"
import { Interrupt } from "./Races.ts"

/**
 * The commands of the model, on the Job services called directly with a principal (no HTTP): create
 * (with sandbox directives as faults, and the scripted interpreter's kinds, which ask 0, 1 or 2
 * questions), answer (all, one, stale, a question not asked), revise (new constraints, the same in
 * another order, stale), approve and reject (right, stale, mismatched, twice), cancel, restart the
 * runner, and interrupt the runner's work (Races.ts). Each waits for the runner's work and holds the
 * Job to the model's prediction.
 */

export type Command = fc.AsyncCommand<Model, Real>

const faults = fc.subarray([...directives], { minLength: 1, maxLength: 2 })

// `slow` more often than the others: it opens the windows in which a cancellation or a revision races a
// provider call.
const notesArbitrary = fc.tuple(
  fc.oneof(
    { weight: 2, arbitrary: fc.constant([]) },
    { weight: 2, arbitrary: faults },
    { weight: 1, arbitrary: faults.map((list) => [...new Set([...list, "slow" as const])]) }
  ),
  fc.subarray([...plainNotes], { maxLength: 1 })
).map(([chosen, plain]) => [...chosen.map(directiveNote), ...plain])

const notes = (list: ReadonlyArray<string>) => list.map((text) => ({ type: "note" as const, text }))

/** A revision the Job is not at: the one before it (a client that did not see the last change), or the next. */
const staleRevision = (job: JobModel) => job.revision > 1 ? job.revision - 1 : job.revision + 1

export class Create implements Command {
  readonly kind: Kind
  readonly notes: ReadonlyArray<string>
  constructor(kind: Kind, notes: ReadonlyArray<string>) {
    this.kind = kind
    this.notes = notes
  }
  check = () => true
  async run(model: Model, real: Real) {
    const created = await run(real.jobs.create(real.accountId, { request: this.kind, constraints: notes(this.notes) }))
    assert.deepStrictEqual([created.jobRevision, created.status], [1, "interpreting"])
    const job = newJob(created.id, this.kind, this.notes)
    model.jobs.push(job)
    real.tally.faults += directivesOf(this.notes).size
    await expectChange(real, model, job, ["job.created"])
  }
  toString = () => `create(${this.kind}, [${this.notes}])`
}

export class Revise implements Command {
  readonly index: number
  readonly notes: ReadonlyArray<string>
  readonly variant: "new" | "same" | "stale"
  constructor(index: number, notes: ReadonlyArray<string>, variant: "new" | "same" | "stale") {
    this.index = index
    this.notes = notes
    this.variant = variant
  }
  check = (model: Readonly<Model>) => model.jobs.length > 0
  async run(model: Model, real: Real) {
    const job = pick(model.jobs, this.index)
    const sent = this.variant === "same" ? [...job.notes].reverse() : this.notes
    const then = await before(real, job.id)
    const exit = await attempt(real.jobs.changeConstraints(real.accountId, job.id, {
      jobRevision: this.variant === "stale" ? staleRevision(job) : job.revision,
      constraints: notes(sent)
    }))
    if (isTerminal(job.status)) return expectRefused(real, exit, "WrongState", then)
    if (this.variant === "stale") return expectRefused(real, exit, "StaleRevision", then)
    const after = expectSuccess(exit)
    if (sameNotes(sent, job.notes)) {
      // Equal constraints, in any order, change nothing.
      assert.deepStrictEqual(after, then.job)
      assert.deepStrictEqual(await newEvents(real, model, job.id), [])
      return
    }
    assert.deepStrictEqual([after.jobRevision, after.status, after.proposal], [job.revision + 1, "interpreting", null])
    real.tally.faults += directivesOf(sent).size
    const superseded = job.status === "awaiting_approval" ? ["proposal.superseded"] : []
    await expectChange(real, model, reinterpreting(job, { notes: sent }), [
      "job.revised",
      "work.invalidated",
      ...superseded
    ])
  }
  toString = () => `revise(${this.index}, ${this.variant === "new" ? `[${this.notes}]` : this.variant})`
}

export class Answer implements Command {
  readonly index: number
  readonly variant: "all" | "one" | "stale" | "unasked"
  constructor(index: number, variant: "all" | "one" | "stale" | "unasked") {
    this.index = index
    this.variant = variant
  }
  check = (model: Readonly<Model>) => model.jobs.length > 0
  async run(model: Model, real: Real) {
    // Mostly a Job that waits for input, when there is one: that is where answers matter.
    const waiting = model.jobs.filter((candidate) => candidate.status === "awaiting_input")
    const job = waiting.length > 0 && this.index % 4 !== 0 ? pick(waiting, this.index) : pick(model.jobs, this.index)
    const given = this.variant === "one" ? job.open.slice(0, 1) : job.open
    const answers = this.variant === "unasked"
      ? { q_never: "Nobody asked" }
      : Object.fromEntries(given.map((id) => [id, "Friday at 8pm"]))
    const then = await before(real, job.id)
    const exit = await attempt(real.jobs.answer(real.accountId, job.id, {
      jobRevision: this.variant === "stale" ? staleRevision(job) : job.revision,
      answers
    }))
    // The order of docs/API.md: the state, then the answers themselves, then the revision.
    if (job.status !== "awaiting_input") return expectRefused(real, exit, "WrongState", then)
    if (this.variant === "unasked") return expectRefused(real, exit, "RejectedInput", then)
    if (this.variant === "stale") return expectRefused(real, exit, "StaleRevision", then)
    const after = expectSuccess(exit)
    const open = job.open.filter((id) => !given.includes(id))
    const answered = [...job.answered, ...given]
    assert.strictEqual(after.jobRevision, job.revision + 1, "an answer is a revision")
    assert.deepStrictEqual(after.questions.map((question) => question.id), open)
    if (open.length > 0) {
      const next: JobModel = { ...job, revision: job.revision + 1, open, answered, proposal: null, excluded: 0 }
      return expectChange(real, model, next, ["job.revised"])
    }
    await expectChange(real, model, reinterpreting(job, { answered }), ["job.revised", "work.invalidated"])
  }
  toString = () => `answer(${this.index}, ${this.variant})`
}

export class Cancel implements Command {
  readonly index: number
  constructor(index: number) {
    this.index = index
  }
  check = (model: Readonly<Model>) => model.jobs.length > 0
  async run(model: Model, real: Real) {
    const job = pick(model.jobs, this.index)
    const then = await before(real, job.id)
    const exit = await attempt(real.jobs.cancel(real.accountId, job.id))
    if (isTerminal(job.status)) return expectRefused(real, exit, "WrongState", then)
    // The runner has settled the Job: no side effect stands, nothing is to be undone first.
    const after = expectSuccess(exit)
    assert.deepStrictEqual([after.jobRevision, after.status], [job.revision, "cancelled"], "not a revision")
    await expectChange(real, model, { ...job, status: "cancelled" }, ["job.cancelled"])
  }
  toString = () => `cancel(${this.index})`
}

/** A decision on a Job's proposal: the right one, or one made stale, mismatched, or a second on a proposal decided. */
export class Decide implements Command {
  readonly index: number
  readonly approve: boolean
  readonly variant: Variant
  constructor(index: number, approve: boolean, variant: Variant) {
    this.index = index
    this.approve = approve
    this.variant = variant
  }
  check = (model: Readonly<Model>) => model.jobs.length > 0
  async run(model: Model, real: Real) {
    const { hash, job, twice } = decisionTarget(model.jobs, this.index, this.variant)
    if (job.status === "awaiting_approval" && this.variant === "right") await checkDocument(real, job)
    const then = await before(real, job.id)
    const exit = await attempt(real.jobs.decide(real.principal, job.id, {
      proposalHash: hash as ProposalHash,
      jobRevision: this.variant === "stale" ? staleRevision(job) : job.revision,
      decision: this.approve ? "approve" : "reject"
    }))
    // The order of docs/API.md: the revision, the state (a proposal is decided once), the hash.
    if (this.variant === "stale") return expectRefused(real, exit, "StaleRevision", then)
    if (twice || job.status !== "awaiting_approval") return expectRefused(real, exit, "WrongState", then)
    if (this.variant === "mismatched") return expectRefused(real, exit, "ProposalNotOpen", then)
    const approval = expectSuccess(exit)
    assert.deepStrictEqual(
      [approval.proposalHash, approval.jobRevision, approval.decision, approval.decidedBy],
      [hash, job.revision, this.approve ? "approve" : "reject", real.principal.keyId]
    )
    const decided = [...job.decided, hash]
    if (this.approve) {
      return expectChange(real, model, { ...job, status: "executing", decided }, ["approval.recorded"])
    }
    await expectChange(
      real,
      model,
      { ...job, status: "planning", decided, excluded: job.excluded + 1 },
      ["approval.recorded", "proposal.superseded"]
    )
  }
  toString = () => `${this.approve ? "approve" : "reject"}(${this.index}, ${this.variant})`
}

/** The proposal a decision names is stored once, as the canonical bytes its hash is the SHA-256 of. */
const checkDocument = async (real: Real, job: JobModel) => {
  const bytes = await run(real.proposals.document(real.accountId, job.id, job.proposal!))
  assert.strictEqual(`sha256:${createHash("sha256").update(bytes, "utf8").digest("hex")}`, job.proposal)
  const document = JSON.parse(bytes)
  assert.deepStrictEqual([document.jobId, document.jobRevision], [job.id, job.revision])
}

/**
 * The runner stopped and built again while every Job waits or has ended: nothing changes, and the next
 * commands run on the new one.
 */
export class Restart implements Command {
  check = () => true
  async run(model: Model, real: Real) {
    const then = await Promise.all(model.jobs.map((job) => before(real, job.id)))
    await run(real.harness.restart)
    real.tally.restarts++
    await run(real.harness.settled(real.accountId, model.jobs.map((job) => job.id)))
    for (const [i, job] of model.jobs.entries()) {
      assert.deepStrictEqual(await newEvents(real, model, job.id), [], "a restart alone changes nothing")
      assert.deepStrictEqual((await before(real, job.id)).job, then[i]!.job)
    }
  }
  toString = () => "restart()"
}

const variants = fc.constantFrom<Variant>("right", "right", "right", "stale", "mismatched", "twice")

export const commands: ReadonlyArray<fc.Arbitrary<Command>> = [
  fc.tuple(fc.constantFrom(...kinds), notesArbitrary).map(([kind, list]) => new Create(kind, list)),
  fc.tuple(fc.constantFrom(...kinds), notesArbitrary).map(([kind, list]) => new Create(kind, list)),
  fc.tuple(fc.nat(), notesArbitrary, fc.constantFrom("new", "new", "same", "stale") as fc.Arbitrary<Revise["variant"]>)
    .map(([index, list, variant]) => new Revise(index, list, variant)),
  fc.tuple(fc.nat(), fc.constantFrom("all", "all", "one", "stale", "unasked") as fc.Arbitrary<Answer["variant"]>)
    .map(([index, variant]) => new Answer(index, variant)),
  fc.nat().map((index) => new Cancel(index)),
  fc.tuple(fc.nat(), variants).map(([index, variant]) => new Decide(index, true, variant)),
  fc.tuple(fc.nat(), variants).map(([index, variant]) => new Decide(index, true, variant)),
  fc.tuple(fc.nat(), variants).map(([index, variant]) => new Decide(index, false, variant)),
  fc.constant(new Restart()),
  fc.tuple(
    fc.nat(),
    fc.constantFrom("cancel", "revise", "restart") as fc.Arbitrary<Interrupt["action"]>,
    fc.nat({ max: 1000 }),
    fc.constantFrom(...kinds),
    notesArbitrary
  ).map(([index, action, after, kind, list]) => new Interrupt(index, action, after, kind, list))
]
