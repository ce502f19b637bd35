import { assert } from "@effect/vitest"
import type fc from "fast-check"
import type { JobEvent } from "../../src/schema/JobEvent.ts"
import type { ProposalHash } from "../../src/schema/Proposal.ts"
import type { Model, Real } from "./Driver.ts"
import {
  attempt,
  comparable,
  expectChange,
  expectSuccess,
  fromRecord,
  observe,
  pick,
  predict,
  replace,
  run
} from "./Driver.ts"
import type { JobModel, Kind } from "./Model.ts"
import { directivesOf, isTerminal, nameOf, newJob, reinterpreting, withoutRetries } from "./Model.ts"

/**
 * The runner's work interrupted: a Job is given work (a Job waiting for a decision is approved, one
 * waiting for input answered, or a new one created), and once it has `after` (modulo the work's
 * length) of the work's events, while the runner may be anywhere in that work, the runner is
 * restarted, or the Job cancelled or revised.
 *
 * A restart changes nothing the model predicts: the Job ends exactly where the work would have taken
 * it, with the same events, except that a transient failure's record may be missing (see
 * `withoutRetries`). A cancellation or a new revision races the work, so that its events are not
 * determined: the model checks that the events before it were the work's as predicted, the final
 * state (a cancelled Job is `cancelled`, or `failed` when its undo fails; a revised one ends where the
 * new revision's work takes it, apart from what the old execution does on its way out), and the
 * invariants of the history and the ledger (`observe`, and the checks at the end of a sequence).
 */
export class Interrupt implements fc.AsyncCommand<Model, Real> {
  readonly index: number
  readonly action: "cancel" | "revise" | "restart"
  readonly after: number
  readonly kind: Kind
  readonly notes: ReadonlyArray<string>
  constructor(
    index: number,
    action: "cancel" | "revise" | "restart",
    after: number,
    kind: Kind,
    notes: ReadonlyArray<string>
  ) {
    this.index = index
    this.action = action
    this.after = after
    this.kind = kind
    this.notes = notes
  }
  check = () => true

  async run(model: Model, real: Real) {
    real.tally.races++
    const { immediate, start } = await this.giveWork(model, real)
    const work = [...immediate, ...predict(start).events]
    const seen = model.seen.get(start.id) ?? 0
    // Any point of the work: before it begins, after any of its events, or once it is done.
    await run(real.harness.eventsAtLeast(real.accountId, start.id, seen + (this.after % (work.length + 1))))
    switch (this.action) {
      case "restart":
        await run(real.harness.restart)
        real.tally.restarts++
        real.interrupted.add(start.id)
        return expectChange(real, model, start, immediate, withoutRetries)
      case "cancel":
        return this.cancel(model, real, start, immediate, work)
      case "revise":
        return this.revise(model, real, start, immediate, work)
    }
  }

  /** The Job given work, and the model's Job as the change that gave it left it (before the runner). */
  private async giveWork(
    model: Model,
    real: Real
  ): Promise<{ readonly immediate: ReadonlyArray<string>; readonly start: JobModel }> {
    const waiting = model.jobs.filter((job) => job.status === "awaiting_approval" || job.status === "awaiting_input")
    if (waiting.length === 0) {
      const created = await run(real.jobs.create(real.accountId, {
        request: this.kind,
        constraints: this.notes.map((text) => ({ type: "note" as const, text }))
      }))
      const start = newJob(created.id, this.kind, this.notes)
      model.jobs.push(start)
      real.tally.faults += directivesOf(this.notes).size
      return { immediate: ["job.created"], start }
    }
    const job = pick(waiting, this.index)
    if (job.status === "awaiting_input") {
      const answers = Object.fromEntries(job.open.map((id) => [id, "Saturday at noon"]))
      expectSuccess(await attempt(real.jobs.answer(real.accountId, job.id, { jobRevision: job.revision, answers })))
      return {
        immediate: ["job.revised", "work.invalidated"],
        start: reinterpreting(job, { answered: [...job.answered, ...job.open] })
      }
    }
    expectSuccess(
      await attempt(real.jobs.decide(real.principal, job.id, {
        proposalHash: job.proposal as ProposalHash,
        jobRevision: job.revision,
        decision: "approve"
      }))
    )
    return {
      immediate: ["approval.recorded"],
      start: { ...job, status: "executing", decided: [...job.decided, job.proposal!] }
    }
  }

  private async cancel(
    model: Model,
    real: Real,
    start: JobModel,
    immediate: ReadonlyArray<string>,
    work: ReadonlyArray<string>
  ) {
    const exit = await attempt(real.jobs.cancel(real.accountId, start.id))
    if (exit._tag === "Failure") {
      // Too late: the work had ended the Job, exactly as predicted.
      assert.isTrue(isTerminal(predict(start).job.status), `cancel refused: ${String(exit.cause)}`)
      return expectChange(real, model, start, immediate)
    }
    assert.include(["cancelled", "recovering"], exit.value.status)
    assert.strictEqual(exit.value.jobRevision, start.revision, "a cancellation is not a revision")
    const seen = await observe(real, model, start.id)
    const names = seen.fresh.map(nameOf)
    const cut = seen.fresh.findIndex((event, i) =>
      i >= immediate.length
      && (event.type === "job.cancelled" || (event.type === "work.invalidated" && event.data.cause === "cancel"))
    )
    assert.isAtLeast(cut, 0, `no cancellation in ${names}`)
    assert.deepStrictEqual(names.slice(0, cut), work.slice(0, cut), "before the cancellation, the work as predicted")
    // Cancelled at once, unless an execution is under way: then its side effect is undone first.
    const executing = names.slice(0, cut).includes("execution.started")
    assert.strictEqual(exit.value.status, names[cut] === "job.cancelled" ? "cancelled" : "recovering")
    if (exit.value.status === "cancelled") assert.strictEqual(cut, names.length - 1, "nothing follows a cancellation")
    const undoCanFail = executing && directivesOf(start.notes).has("cancel-fails")
    assert.include(undoCanFail ? ["cancelled", "failed"] : ["cancelled"], seen.job.status, names.join(" "))
    assert.strictEqual(seen.job.jobRevision, start.revision)
    this.resync(model, start, seen)
  }

  private async revise(
    model: Model,
    real: Real,
    start: JobModel,
    immediate: ReadonlyArray<string>,
    work: ReadonlyArray<string>
  ) {
    const exit = await attempt(real.jobs.changeConstraints(real.accountId, start.id, {
      jobRevision: start.revision,
      constraints: this.notes.map((text) => ({ type: "note" as const, text }))
    }))
    if (exit._tag === "Failure") {
      assert.isTrue(isTerminal(predict(start).job.status), `revision refused: ${String(exit.cause)}`)
      return expectChange(real, model, start, immediate)
    }
    // The same constraints: nothing changes, and the work goes on as predicted.
    if (exit.value.jobRevision === start.revision) return expectChange(real, model, start, immediate)
    assert.strictEqual(exit.value.jobRevision, start.revision + 1)
    real.tally.faults += directivesOf(this.notes).size
    const seen = await observe(real, model, start.id)
    const names = seen.fresh.map(nameOf)
    const cut = names.indexOf("job.revised", immediate.length)
    assert.isAtLeast(cut, 0, `no revision in ${names}`)
    assert.deepStrictEqual(names.slice(0, cut), work.slice(0, cut), "before the revision, the work as predicted")
    const next = predict(reinterpreting(start, { notes: this.notes }))
    const executing = names.slice(0, cut).includes("execution.started")
    if (seen.job.status === "failed" && executing && directivesOf(start.notes).has("cancel-fails")) {
      // The old execution could not be undone: the Job fails, naming what stands (checked by `observe`).
      return this.resync(model, start, seen)
    }
    // The new revision's work as predicted, the old revision's proposals and the invalidations set aside.
    const old = new Set(
      seen.events.slice(0, seen.events.length - seen.fresh.length + cut)
        .filter((event) => event.type === "proposal.presented")
        .map((event) => event.data.proposalHash)
    )
    const own = seen.fresh.slice(cut).filter((event) =>
      event.type !== "work.invalidated" && !old.has(event.data.proposalHash)
    )
    assert.deepStrictEqual(own.map(nameOf), ["job.revised", ...next.events], names.join(" "))
    const actual = fromRecord(next.job, seen.record)
    assert.deepStrictEqual(comparable(actual), comparable(next.job))
    this.resync(model, start, seen)
  }

  private resync(
    model: Model,
    start: JobModel,
    seen: { readonly events: ReadonlyArray<JobEvent>; readonly record: Parameters<typeof fromRecord>[1] }
  ) {
    replace(model, fromRecord(start, seen.record))
    model.seen.set(start.id, seen.events.length)
  }

  toString = () =>
    `interrupt(${this.index}, ${this.action} after ${this.after}${
      this.action === "revise" ? ` with [${this.notes}]` : ""
    }, or a new ${this.kind} [${this.notes}])`
}
