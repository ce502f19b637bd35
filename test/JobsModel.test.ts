import { assert, describe, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import fc from "fast-check"
import * as JobsClient from "../src/client/JobsClient.ts"
import type { Job } from "../src/schema/Job.ts"
import type { JobAsOf, JobEvent } from "../src/schema/JobEvent.ts"
import type { JobId } from "../src/schema/JobRef.ts"
import type { Kind, Variant } from "./model/Model.ts"
import {
  checkHistory,
  decisionTarget,
  isTerminal,
  kinds,
  nameOf,
  questionsOf,
  runnerWork,
  scripted,
  working
} from "./model/Model.ts"
import { baseUrl } from "./support/Http.ts"
import type { PreviewServices } from "./support/JobsHttp.ts"
import { newIdempotencyKey, newKey, previewServerWith, servicesLive, servicesTest } from "./support/JobsHttp.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

/**
 * The Job API held by a model (fast-check commands): create, revise, answer, approve (right, stale,
 * mismatched, twice), reject, cancel, read the Job at a past position or revision, and open and resume
 * event streams, in any order, over HTTP with the typed client, with the sandbox provider behind it.
 * Invariants: every change makes exactly the revision and the events the model predicts (revisions grow
 * by one per change), and so does the runner's work after it; a reader resuming after any position gets
 * every later event exactly once, in order; the point-in-time view at every position equals the Job as
 * it was then; no Outcome without a verification, no execution without a consumed approval of the
 * current revision's proposal, never more spent than approved, at most one successful execution per
 * proposal (`checkHistory`). The interpreter's script, the runner's predicted work and the invariants
 * are those of the model of the services (test/model/Model.ts).
 */

interface JobModel {
  readonly id: JobId
  readonly kind: Kind
  revision: number
  status: Job["status"]
  open: ReadonlyArray<string>
  notes: ReadonlyArray<string>
  /** The open (or last) proposal's hash, the hashes decided in this revision, and the offers rejected in it. */
  proposal: string | null
  decided: ReadonlyArray<string>
  rejected: number
}

interface Model {
  readonly jobs: Array<JobModel>
  /** Every event, in position order, as the service published them. */
  readonly log: Array<JobEvent>
  /**
   * The Job as each change left it, from the change's first event on: the events of a change commit
   * together, and its first one says all it changed (the others, such as `work.invalidated`, change
   * nothing the Job shows). The runner's work between two states the model knows is recorded as
   * unknown (`undefined`) up to its last event, from which the Job as it settled holds.
   */
  readonly states: Map<string, Array<{ readonly position: number; readonly job: Job | undefined }>>
  /** Where each resumed stream stands: "" for the account's, a Job's id for its own. */
  readonly cursors: Map<string, number>
}

interface Real {
  readonly api: JobsClient.JobsClient
}

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)

/** The events the service appended since the log's end, read page by page. */
const newEvents = (real: Real, model: Model) =>
  run(Effect.gen(function*() {
    const events: Array<JobEvent> = []
    let after = model.log.at(-1)?.position ?? 0
    while (true) {
      const page = yield* real.api.Jobs.listEvents({ query: { after, limit: 100 } })
      events.push(...page.data)
      if (page.data.length < 100) return events
      after = page.nextAfter
    }
  }))

/**
 * Takes the events a change appended, checks them against the model's prediction, and records the Job
 * as it was after them. A change that leaves the Job to the runner (interpreting, executing, planning
 * again) is followed by the runner's work until the Job waits for a person or has ended: its events
 * are taken the same way, against the model's prediction of them.
 */
const settle = async (
  real: Real,
  model: Model,
  job: JobModel,
  expected: ReadonlyArray<string>,
  after: Job | undefined
) => {
  const changed = await takeEvents(real, model, job, expected)
  record(model, job, changed, after)
  if (!working.includes(job.status)) return
  const predicted = runnerWorkOf(job)
  const worked = await takeEvents(real, model, job, predicted.events)
  let now = await run(real.api.Jobs.getJob({ params: { id: job.id }, query: {} })) as Job
  for (let i = 0; i < 100 && working.includes(now.status); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10))
    now = await run(real.api.Jobs.getJob({ params: { id: job.id }, query: {} })) as Job
  }
  assert.deepStrictEqual(await newEvents(real, model), [], `nothing after ${predicted.events}`)
  job.status = now.status
  job.proposal = now.proposal?.proposalHash ?? job.proposal
  if (now.status === "awaiting_input") job.open = now.questions.map((question) => question.id)
  assert.strictEqual(now.jobRevision, job.revision)
  assert.strictEqual(now.status, predicted.job.status)
  assert.deepStrictEqual(now.questions.map((question) => question.id), job.status === "awaiting_input" ? job.open : [])
  recordWork(model, job, worked, now)
}

/** The model's prediction (test/model/Model.ts) for a Job the HTTP model left working, without sandbox directives. */
const runnerWorkOf = (job: JobModel) =>
  runnerWork({
    ...job,
    // While it interprets, what is not open any more was answered.
    answered: questionsOf[job.kind].filter((id) => !job.open.includes(id)),
    excluded: job.rejected
  })

/**
 * The next events after the log's end, as many as `expected` names (the runner may already have appended
 * more), within 20 s: on PostgreSQL an event is published only once every older transaction of the
 * cluster has ended, and another test file's transaction can be one of them.
 */
const takeEvents = async (real: Real, model: Model, job: JobModel, expected: ReadonlyArray<string>) => {
  let events: Array<JobEvent> = []
  for (let i = 0; i < 2000 && events.length < expected.length; i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 10))
    events = await newEvents(real, model)
  }
  events = events.slice(0, expected.length)
  assert.deepStrictEqual(events.map((event) => [event.jobId, nameOf(event)]), expected.map((type) => [job.id, type]))
  assert.isTrue(events.every((event) => event.jobRevision === job.revision))
  model.log.push(...events)
  return events
}

const record = (model: Model, job: JobModel, events: ReadonlyArray<JobEvent>, state: Job | undefined) => {
  const first = events[0]
  if (first === undefined) return
  const states = model.states.get(job.id) ?? []
  states.push({ position: first.position, job: state })
  model.states.set(job.id, states)
}

/** The runner's work: unknown from its first event, the settled Job from its last. */
const recordWork = (model: Model, job: JobModel, events: ReadonlyArray<JobEvent>, settled: Job) => {
  const [first, last] = [events[0], events.at(-1)]
  if (first === undefined || last === undefined) return
  const states = model.states.get(job.id) ?? []
  if (first !== last) states.push({ position: first.position, job: undefined })
  states.push({ position: last.position, job: settled })
  model.states.set(job.id, states)
}

/** The model's Job at a position: as the last of its changes by then left it. */
const stateAt = (model: Model, id: string, position: number) =>
  (model.states.get(id) ?? []).filter((state) => state.position <= position).at(-1)

/** The position of the Job's last event at or before `position`. */
const lastEventAt = (model: Model, id: string, position: number) =>
  model.log.filter((event) => event.jobId === id && event.position <= position).at(-1)?.position

const pick = <A>(items: ReadonlyArray<A>, n: number) => items[n % items.length]!

type Command = fc.AsyncCommand<Model, Real>

class Create implements Command {
  readonly kind: Kind
  readonly notes: ReadonlyArray<string>
  constructor(kind: Kind, notes: ReadonlyArray<string>) {
    this.kind = kind
    this.notes = notes
  }
  check = () => true
  async run(model: Model, real: Real) {
    const created = await run(real.api.Jobs.createJob({
      headers: { "idempotency-key": newIdempotencyKey() },
      payload: { request: this.kind, constraints: this.notes.map((text) => ({ type: "note" as const, text })) }
    }))
    assert.strictEqual(created.jobRevision, 1)
    assert.strictEqual(created.status, "interpreting")
    const job: JobModel = {
      id: created.id,
      kind: this.kind,
      revision: 1,
      status: "interpreting",
      open: questionsOf[this.kind],
      notes: this.notes,
      proposal: null,
      decided: [],
      rejected: 0
    }
    model.jobs.push(job)
    await settle(real, model, job, ["job.created"], created)
  }
  toString = () => `create(${this.kind}, [${this.notes}])`
}

class Revise implements Command {
  readonly index: number
  readonly notes: ReadonlyArray<string>
  readonly stale: boolean
  constructor(index: number, notes: ReadonlyArray<string>, stale: boolean) {
    this.index = index
    this.notes = notes
    this.stale = stale
  }
  check = (model: Readonly<Model>) => model.jobs.length > 0
  async run(model: Model, real: Real) {
    const job = pick(model.jobs, this.index)
    const exit = await run(Effect.exit(real.api.Jobs.changeConstraints({
      params: { id: job.id },
      headers: { "idempotency-key": newIdempotencyKey() },
      payload: {
        jobRevision: this.stale ? job.revision + 1 : job.revision,
        constraints: this.notes.map((text) => ({ type: "note" as const, text }))
      }
    })))
    if (isTerminal(job.status)) return expectRefused(exit, "invalid_state", await newEvents(real, model))
    if (this.stale) return expectRefused(exit, "revision_mismatch", await newEvents(real, model))
    assert.isTrue(Exit.isSuccess(exit), String(exit))
    const after = (exit as Exit.Success<Job>).value
    if ([...this.notes].sort().join("\n") === [...job.notes].sort().join("\n")) {
      assert.strictEqual(after.jobRevision, job.revision, "equal constraints change nothing")
      assert.deepStrictEqual(await newEvents(real, model), [])
      return
    }
    const superseded = job.status === "awaiting_approval" ? ["proposal.superseded"] : []
    job.revision += 1
    job.notes = this.notes
    job.status = "interpreting"
    job.open = questionsOf[job.kind].filter((id) => !answeredBefore(model, job, id))
    job.proposal = null
    job.decided = []
    job.rejected = 0
    assert.strictEqual(after.jobRevision, job.revision, "one revision more")
    assert.strictEqual(after.status, "interpreting")
    assert.isNull(after.proposal)
    await settle(real, model, job, ["job.revised", "work.invalidated", ...superseded], after)
  }
  toString = () => `revise(${this.index}, [${this.notes}]${this.stale ? ", stale" : ""})`
}

/** Whether `id` was answered in an earlier revision (answers are kept across revisions). */
const answeredBefore = (model: Model, job: JobModel, id: string) =>
  model.log.some((event) =>
    event.jobId === job.id && event.type === "job.revised"
    && ((event.data.answers ?? []) as ReadonlyArray<{ questionId: string }>).some((answer) => answer.questionId === id)
  )

class Answer implements Command {
  readonly index: number
  readonly all: boolean
  constructor(index: number, all: boolean) {
    this.index = index
    this.all = all
  }
  check = (model: Readonly<Model>) => model.jobs.length > 0
  async run(model: Model, real: Real) {
    const job = pick(model.jobs, this.index)
    const given = this.all ? job.open : job.open.slice(0, 1)
    const exit = await run(Effect.exit(real.api.Jobs.answerQuestions({
      params: { id: job.id },
      headers: { "idempotency-key": newIdempotencyKey() },
      payload: { jobRevision: job.revision, answers: Object.fromEntries(given.map((id) => [id, "Friday at 8pm"])) }
    })))
    if (given.length === 0) {
      // No answer at all is invalid_request whatever the Job's state (the typed client refuses to send it).
      assert.isTrue(Exit.isFailure(exit))
      assert.include([undefined, "invalid_request"], codeOf(exit))
      assert.deepStrictEqual(await newEvents(real, model), [], "a refused change appends nothing")
      return
    }
    if (job.status !== "awaiting_input") return expectRefused(exit, "invalid_state", await newEvents(real, model))
    assert.isTrue(Exit.isSuccess(exit), String(exit))
    const after = (exit as Exit.Success<Job>).value
    job.revision += 1
    job.open = job.open.filter((id) => !given.includes(id))
    job.proposal = null
    job.decided = []
    job.rejected = 0
    assert.strictEqual(after.jobRevision, job.revision, "one revision more")
    if (job.open.length > 0) {
      assert.strictEqual(after.status, "awaiting_input")
      assert.deepStrictEqual(after.questions.map((question) => question.id), job.open)
      return settle(real, model, job, ["job.revised"], after)
    }
    job.status = "interpreting"
    assert.strictEqual(after.status, "interpreting")
    await settle(real, model, job, ["job.revised", "work.invalidated"], after)
  }
  toString = () => `answer(${this.index}, ${this.all ? "all" : "one"})`
}

class Cancel implements Command {
  readonly index: number
  constructor(index: number) {
    this.index = index
  }
  check = (model: Readonly<Model>) => model.jobs.length > 0
  async run(model: Model, real: Real) {
    const job = pick(model.jobs, this.index)
    const exit = await run(Effect.exit(real.api.Jobs.cancelJob({
      params: { id: job.id },
      headers: { "idempotency-key": newIdempotencyKey() }
    })))
    if (isTerminal(job.status)) return expectRefused(exit, "invalid_state", await newEvents(real, model))
    assert.isTrue(Exit.isSuccess(exit), String(exit))
    const after = (exit as Exit.Success<Job>).value
    job.status = "cancelled"
    assert.strictEqual(after.jobRevision, job.revision, "cancelling is not a revision")
    assert.strictEqual(after.status, "cancelled")
    assert.notStrictEqual(after.proposal?.status, "open", "no proposal stays open on a cancelled Job")
    await settle(real, model, job, ["job.cancelled"], after)
  }
  toString = () => `cancel(${this.index})`
}

/** A decision on a Job's proposal: the right one, or one made stale, mismatched, or a second on the same proposal. */
class Decide implements Command {
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
    const exit = await run(Effect.exit(real.api.Jobs.createApproval({
      params: { id: job.id },
      headers: { "idempotency-key": newIdempotencyKey() },
      payload: {
        proposalHash: hash as never,
        jobRevision: this.variant === "stale" ? job.revision + 1 : job.revision,
        decision: this.approve ? "approve" : "reject"
      }
    })))
    const appended = () => newEvents(real, model)
    if (this.variant === "stale") return expectRefused(exit, "revision_mismatch", await appended())
    if (twice || job.status !== "awaiting_approval") return expectRefused(exit, "invalid_state", await appended())
    if (this.variant === "mismatched") return expectRefused(exit, "proposal_mismatch", await appended())
    assert.isTrue(Exit.isSuccess(exit), String(exit))
    const approval = Exit.isSuccess(exit) ? exit.value : undefined
    assert.deepStrictEqual([approval?.proposalHash, approval?.decision], [hash, this.approve ? "approve" : "reject"])
    job.decided = [...job.decided, hash]
    if (this.approve) {
      job.status = "executing"
      return settle(real, model, job, ["approval.recorded"], undefined)
    }
    job.status = "planning"
    job.rejected += 1
    await settle(real, model, job, ["approval.recorded", "proposal.superseded"], undefined)
  }
  toString = () => `${this.approve ? "approve" : "reject"}(${this.index}, ${this.variant})`
}

const codeOf = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit)
    ? (Option.getOrUndefined(Exit.findErrorOption(exit)) as { readonly error?: string } | undefined)?.error
    : undefined

const expectRefused = (exit: Exit.Exit<unknown, unknown>, code: string, appended: ReadonlyArray<JobEvent>) => {
  assert.strictEqual(codeOf(exit), code)
  assert.deepStrictEqual(appended, [], "a refused change appends nothing")
}

/** The Job at a position: the model's state then, with `asOf` naming the position of its last event. */
const checkViewAt = async (model: Model, real: Real, id: JobId, position: number) => {
  const exit = await run(Effect.exit(real.api.Jobs.getJob({ params: { id }, query: { at: position } })))
  const expected = stateAt(model, id, position)
  if (expected === undefined) {
    assert.strictEqual(codeOf(exit), "not_found", `nothing at ${position}`)
    return
  }
  assert.isTrue(Exit.isSuccess(exit), String(exit))
  if (expected.job === undefined) return
  const { asOf, ...job } = (exit as Exit.Success<JobAsOf>).value
  assert.deepStrictEqual(job, expected.job, `the Job ${id} at ${position}`)
  assert.deepStrictEqual(asOf, { jobRevision: expected.job.jobRevision, position: lastEventAt(model, id, position) })
}

class ReadAt implements Command {
  readonly index: number
  readonly event: number
  readonly shift: number
  constructor(index: number, event: number, shift: number) {
    this.index = index
    this.event = event
    this.shift = shift
  }
  check = (model: Readonly<Model>) => model.jobs.length > 0
  async run(model: Model, real: Real) {
    const job = pick(model.jobs, this.index)
    const position = model.log.length === 0 ? 0 : Math.max(0, pick(model.log, this.event).position + this.shift)
    await checkViewAt(model, real, job.id, position)
  }
  toString = () => `readAt(${this.index}, event ${this.event} ${this.shift >= 0 ? "+" : ""}${this.shift})`
}

class ReadRevision implements Command {
  readonly index: number
  readonly revision: number
  constructor(index: number, revision: number) {
    this.index = index
    this.revision = revision
  }
  check = (model: Readonly<Model>) => model.jobs.length > 0
  async run(model: Model, real: Real) {
    const job = pick(model.jobs, this.index)
    const revision = 1 + (this.revision % (job.revision + 1))
    const exit = await run(Effect.exit(real.api.Jobs.getJob({
      params: { id: job.id },
      query: { revision }
    })))
    const states = model.states.get(job.id) ?? []
    const ended = states.filter((state) => state.job?.jobRevision === revision).at(-1)
    if (ended?.job === undefined || states.at(-1)?.job === undefined) {
      if (ended !== undefined) return

      assert.strictEqual(codeOf(exit), "not_found")
      return
    }
    const { asOf, ...view } = (exit as Exit.Success<JobAsOf>).value
    if (
      states.some((state, i) => i > states.indexOf(ended) && state.job === undefined && state.position > ended.position)
    ) {
      return
    }
    assert.deepStrictEqual(view, ended.job)
    const last = model.log.filter((event) => event.jobId === job.id && event.jobRevision === revision).at(-1)
    assert.deepStrictEqual(asOf, { jobRevision: revision, position: last?.position })
  }
  toString = () => `readRevision(${this.index}, ${this.revision})`
}

/** Opens a stream where the last one of its kind stopped, takes some events, and disconnects. */
class Follow implements Command {
  readonly index: number | undefined
  readonly take: number
  constructor(index: number | undefined, take: number) {
    this.index = index
    this.take = take
  }
  check = (model: Readonly<Model>) => this.index === undefined || model.jobs.length > 0
  async run(model: Model, real: Real) {
    const jobId = this.index === undefined ? undefined : pick(model.jobs, this.index).id
    const cursor = model.cursors.get(jobId ?? "") ?? 0
    const later = model.log.filter((event) => event.position > cursor && (jobId === undefined || event.jobId === jobId))
    const expected = later.slice(0, this.take)
    const received = await run(
      real.api.follow({ jobId, after: cursor }).pipe(
        Stream.take(expected.length === 0 ? 1 : expected.length),
        // Nothing is left to read: the stream stays open and silent.
        // (A liveness guard when events are due: a loaded machine can take seconds to send them.)
        Stream.interruptWhen(Effect.sleep(expected.length === 0 ? "100 millis" : "60 seconds")),
        Stream.runCollect
      )
    )
    assert.deepStrictEqual(received, expected, "exactly the events after the cursor, once, in order")
    model.cursors.set(jobId ?? "", received.at(-1)?.position ?? cursor)
  }
  toString = () => `follow(${this.index ?? "account"}, take ${this.take})`
}

const notes = fc.array(fc.constantFrom("quiet table", "window seat", "no stairs"), { maxLength: 2 })
const commands = [
  fc.tuple(fc.constantFrom(...kinds), notes).map(([kind, list]) => new Create(kind, list)),
  fc.tuple(fc.nat(), notes, fc.boolean()).map(([index, list, stale]) => new Revise(index, list, stale)),
  fc.tuple(fc.nat(), fc.boolean()).map(([index, all]) => new Answer(index, all)),
  fc.nat().map((index) => new Cancel(index)),
  fc.tuple(
    fc.nat(),
    fc.boolean(),
    fc.constantFrom("right", "right", "stale", "mismatched", "twice") as fc.Arbitrary<
      "right" | "stale" | "mismatched" | "twice"
    >
  ).map(([index, approve, variant]) => new Decide(index, approve, variant)),
  fc.tuple(
    fc.nat(),
    fc.constant(true),
    fc.constantFrom("right", "right", "stale", "mismatched", "twice") as fc.Arbitrary<
      "right" | "stale" | "mismatched" | "twice"
    >
  ).map(([index, approve, variant]) => new Decide(index, approve, variant)),
  fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: -1, max: 1 })).map(([i, e, s]) => new ReadAt(i, e, s)),
  fc.tuple(fc.nat(), fc.nat()).map(([index, revision]) => new ReadRevision(index, revision)),
  fc.tuple(fc.option(fc.nat(), { nil: undefined }), fc.integer({ min: 1, max: 6 })).map(([i, n]) => new Follow(i, n))
]

const behaviour = <E>(name: string, services: Layer.Layer<PreviewServices, E>, numRuns: number) =>
  layer(previewServerWith(services).pipe(Layer.provideMerge(FetchHttpClient.layer)), {
    excludeTestServices: true,
    timeout: "240 seconds"
  })(name, (it) => {
    it.effect("holds the model through any sequence of commands", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const keys = yield* Effect.forEach(Array.from({ length: numRuns * 4 }), () => newKey())
        const clients = yield* Effect.forEach(keys, (apiKey) => JobsClient.make({ baseUrl: url, apiKey }))
        let runs = 0
        let steps = 0
        const seen = new Map<string, number>()
        const started = Date.now()
        yield* Effect.promise(() =>
          fc.assert(
            fc.asyncProperty(fc.commands(commands, { maxCommands: 30, size: "+1" }), async (sequence) => {
              // A new account for every run (shrinking runs again): each starts from an empty history.
              const real = { api: clients[runs++ % clients.length]! }
              const model: Model = { jobs: [], log: [], states: new Map(), cursors: new Map() }
              await fc.asyncModelRun(() => ({ model, real }), sequence)
              steps += [...sequence].length
              checkHistory(model.log)
              for (const event of model.log) seen.set(event.type, (seen.get(event.type) ?? 0) + 1)
              // The view at every position of the history equals the Job as it was then.
              const positions = new Set([0, ...model.log.flatMap((event) => [event.position - 1, event.position])])
              for (const job of model.jobs) {
                for (const position of positions) await checkViewAt(model, real, job.id, position)
              }
              // And one stream from the start holds the whole history, once and in order.
              if (model.log.length > 0) {
                const whole = await run(real.api.follow({}).pipe(Stream.take(model.log.length), Stream.runCollect))
                assert.deepStrictEqual(whole, model.log)
              }
            }),
            { numRuns, endOnFailure: true }
          )
        )
        console.log(
          `model-based test (${name}): ${numRuns} runs, ${steps} commands, ${runs} sequences run, ${
            Date.now() - started
          } ms; ${seen.get("approval.recorded") ?? 0} decisions, ${seen.get("job.completed") ?? 0} completed, ${
            seen.get("job.cancelled") ?? 0
          } cancelled`
        )
        assert.isAtLeast(runs, numRuns)
        // The runs went past planning: decisions were taken and Jobs completed.
        assert.isAbove(seen.get("approval.recorded") ?? 0, 0)
        assert.isAbove(seen.get("job.completed") ?? 0, 0)
      }), 300_000)
  })

describe("the Job API against its model", () => {
  behaviour("in memory", servicesTest(scripted), 150)
  behaviour(`on ${TestDatabase.kind}`, servicesLive(scripted), 30)
})
