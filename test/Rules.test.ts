import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import type { AccountId } from "../src/schema/ApiKey.ts"
import type { Job, JobId } from "../src/schema/Job.ts"
import type { JobEvent } from "../src/schema/JobEvent.ts"
import * as Money from "../src/schema/Money.ts"
import type { Interpretation } from "../src/services/interpreter/Interpreter.ts"
import * as Approval from "../src/services/jobs/rules/Approval.ts"
import * as EventFold from "../src/services/jobs/rules/EventFold.ts"
import * as Execution from "../src/services/jobs/rules/Execution.ts"
import type { Change, JobRecord, RunRef } from "../src/services/jobs/rules/JobRecord.ts"
import * as Proposal from "../src/services/jobs/rules/Proposal.ts"
import * as Revision from "../src/services/jobs/rules/Revision.ts"
import type { Quote } from "../src/services/providers/Provider.ts"

/**
 * The rules of proposals, approvals, execution, verification and recovery, driven by random sequences
 * of commands and provider answers: after every change, the fold of its events gives exactly the Job
 * the change leaves (so the point-in-time view is right on these paths too), and the invariants of the
 * design hold: no Outcome without a verification, no execution without a consumed approval of the
 * current revision's proposal (or a free one), never more spent than approved, at most one successful
 * execution per proposal.
 */

const objective = { kind: "reservation" as const, summary: "A table" }
const understood: Interpretation = { _tag: "Understood", objective, constraints: [] }
const budget = { type: "budget" as const, max: { amount: "100.00", currency: "EUR" } }

const quote = (id: string, amount: string): Quote => ({
  offer: { id, title: `Offer ${id}`, details: {} },
  price: { amount, currency: "EUR" },
  terms: { cancellable: true, cancellationFee: { amount: "0.00", currency: "EUR" } }
})
const quotes = [quote("o1", "90.00"), quote("o2", "75.00"), quote("o3", "120.00")]

type Command =
  | { readonly _tag: "interpret" }
  | { readonly _tag: "plan"; readonly free: boolean }
  | { readonly _tag: "decide"; readonly approve: boolean; readonly stale: boolean; readonly wrongHash: boolean }
  | { readonly _tag: "expire" }
  | { readonly _tag: "claim" }
  | { readonly _tag: "call"; readonly result: "ok" | "transient" | "permanent" }
  | { readonly _tag: "verify"; readonly ok: boolean }
  | { readonly _tag: "undo"; readonly ok: boolean }
  | { readonly _tag: "revise" }
  | { readonly _tag: "cancel" }

/**
 * A command is chosen among those the Job's state accepts (`pick`), from a random number and random
 * variants, so that sequences go deep (execution, verification, recovery) before they end; a revision
 * or a cancellation comes rarely, at any point.
 */
interface Draw {
  readonly n: number
  readonly free: boolean
  readonly approve: boolean
  readonly stale: boolean
  readonly wrongHash: boolean
  readonly call: "ok" | "transient" | "permanent"
  readonly ok: boolean
}
const rarely = fc.integer({ min: 0, max: 9 }).map((n) => n === 0)
const draw: fc.Arbitrary<Draw> = fc.record({
  n: fc.nat(),
  free: rarely,
  approve: fc.integer({ min: 0, max: 3 }).map((n) => n > 0),
  stale: rarely,
  wrongHash: rarely,
  call: fc.constantFrom("ok", "ok", "transient", "permanent"),
  ok: fc.integer({ min: 0, max: 3 }).map((n) => n > 0)
})

const pick = (record: JobRecord, d: Draw): Command => {
  if (d.n % 25 === 0) return { _tag: "revise" }
  if (d.n % 25 === 1) return { _tag: "cancel" }
  const execution = record.execution
  const settling: ReadonlyArray<Command> = execution === null
    ? []
    : execution.phase === "calling"
    ? [{ _tag: "call", result: d.call }, { _tag: "undo", ok: d.ok }]
    : execution.phase === "succeeded"
    ? [{ _tag: "verify", ok: d.ok }]
    : [{ _tag: "undo", ok: d.ok }]
  const own: ReadonlyArray<Command> = record.status === "interpreting"
    ? [{ _tag: "interpret" }]
    : record.status === "planning"
    ? [{ _tag: "plan", free: d.free }]
    : record.status === "awaiting_approval"
    ? [
      { _tag: "decide", approve: d.approve, stale: d.stale, wrongHash: d.wrongHash },
      ...(d.n % 7 === 0 ? [{ _tag: "expire" } as const] : [])
    ]
    : record.status === "executing" && execution === null
    ? [{ _tag: "claim" }]
    : []
  const choices = [...settling, ...own]
  return choices.length === 0 ? { _tag: "revise" } : choices[d.n % choices.length]!
}

/** The run that acts: the execution's owner when there is one, else the Job's current run. */
const runOf = (record: JobRecord): RunRef => {
  const execution = record.execution
  return {
    accountId: record.accountId,
    jobId: record.id,
    revision: execution?.revision ?? record.revision,
    run: execution?.run ?? record.run
  }
}

const apply = (record: JobRecord, c: Command, now: string, later: string): Change | undefined => {
  const ref = runOf(record)
  const execution = record.execution
  switch (c._tag) {
    case "interpret":
      return Revision.interpreted(record, record.revision, understood, now)
    case "plan":
      return Proposal.present(record, { ...ref, revision: record.revision, run: record.run }, {
        provider: "sandbox",
        quotes: c.free ? [quote("free", "0.00")] : quotes,
        ttlMillis: 60_000
      }, now)
    case "decide": {
      const hash = record.proposal?.hash ?? Proposal.hashOf("none")
      const decided = Approval.decide(
        record,
        {
          proposalHash: c.wrongHash ? Proposal.hashOf("other") : hash,
          jobRevision: c.stale ? record.revision + 1 : record.revision,
          decision: c.approve ? "approve" : "reject"
        },
        "key_1",
        now
      )
      return Result.isSuccess(decided) ? decided.success : undefined
    }
    case "expire":
      return Proposal.expire(record, later)
    case "claim": {
      const claimed = Approval.claim(record, { ...ref, revision: record.revision, run: record.run }, now)
      return claimed._tag === "Blocked" ? undefined : claimed.change
    }
    case "call":
      return execution === null ? undefined : Execution.executed(
        record,
        execution.number,
        c.result === "ok"
          ? { _tag: "Succeeded", reference: `ref-${execution.key}` }
          : c.result === "transient"
          ? { _tag: "Transient", error: "busy" }
          : { _tag: "Permanent", error: "no" },
        now
      )
    case "verify": {
      if (execution === null || record.proposal === null) return undefined
      const document = record.proposal.document
      const spent = c.ok ? document.spend : { ...document.spend, amount: "999.00" }
      return Execution.verified(
        record,
        execution.number,
        "sandbox",
        Execution.compare(document, {
          key: execution.key,
          state: "succeeded",
          reference: execution.reference ?? "ref",
          offerId: document.offer.id,
          spent,
          terms: document.terms
        }),
        now
      )
    }
    case "undo":
      return execution === null
        ? undefined
        : Execution.undone(
          record,
          execution.number,
          c.ok
            ? { _tag: "Undone", hadEffect: execution.reference !== null }
            : { _tag: "Failed", error: "refused", final: false },
          now
        )
    case "revise": {
      const revised = Revision.changeConstraints(record, {
        jobRevision: record.revision,
        constraints: [budget, { type: "note", text: `r${record.revision}` }]
      }, now)
      return Result.isSuccess(revised) ? revised.success : undefined
    }
    case "cancel": {
      const cancelled = Revision.cancel(record, now)
      return Result.isSuccess(cancelled) ? cancelled.success : undefined
    }
  }
}

/** A change's events as the store logs them, at the positions `next` gives, their data as JSON carries it. */
const logOf = (change: Change, next: () => number): Array<JobEvent> =>
  change.events.map((event) => ({
    position: next(),
    jobId: change.record.id,
    jobRevision: change.record.revision,
    type: event.type,
    data: JSON.parse(JSON.stringify(event.data)),
    occurredAt: change.record.updatedAt
  }))

describe("Proposal", () => {
  it("fold gives the Job every change leaves, and the invariants hold on every path", () =>
    fc.assert(
      fc.property(fc.array(draw, { maxLength: 60 }), (draws) => {
        let position = 0
        const log: Array<JobEvent> = []
        const eventsOf = (change: Change): ReadonlyArray<JobEvent> => {
          const logged = logOf(change, () => ++position)
          log.push(...logged)
          return logged
        }
        const start = Date.UTC(2026, 10, 24)
        const created = Revision.create("job_111111111111111111111111" as JobId, "acct" as AccountId, {
          request: "A table",
          constraints: [budget]
        }, new Date(start).toISOString())
        let record = created.record
        let view: Job | undefined = EventFold.fold(undefined, eventsOf(created))
        const consumed = new Set<string>()
        const succeeded = new Map<string, number>()
        draws.forEach((d, i) => {
          const c = pick(record, d)
          const now = new Date(start + 1000 * (i + 1)).toISOString()
          const later = new Date(start + 1000 * (i + 1) + 120_000).toISOString()
          const before = record
          const change = apply(record, c, now, later)
          if (change === undefined || change.events.length === 0) return
          record = change.record
          view = EventFold.fold(view, eventsOf(change))
          assert.deepStrictEqual(view, Revision.toView(record), `after ${JSON.stringify(c)}`)
          // A proposal is open only while it waits for a decision, or while a cancellation first undoes an
          // older execution (`job.cancelled` then supersedes it): an ended Job has none open.
          if (record.proposal?.status === "open") {
            assert.isTrue(record.status === "awaiting_approval" || record.cancelling, record.status)
          }
          for (const event of change.events) {
            const data = event.data as Record<string, unknown>
            if (event.type === "execution.started") {
              // Only the current revision's approved (or free) proposal, consumed once.
              assert.strictEqual(before.proposal?.status, "approved")
              assert.strictEqual(before.proposal?.hash, data.proposalHash)
              assert.strictEqual(before.proposal?.document.jobRevision, before.revision)
              assert.isFalse(consumed.has(String(data.proposalHash)))
              consumed.add(String(data.proposalHash))
            }
            if (event.type === "execution.succeeded") {
              const hash = String(data.proposalHash)
              succeeded.set(hash, (succeeded.get(hash) ?? 0) + 1)
              assert.isAtMost(succeeded.get(hash)!, 1)
            }
            if (event.type === "proposal.presented") {
              const spend = data.spend as { amount: string; currency: string }
              assert.isTrue(Money.atMost(spend, budget.max), `spend ${spend.amount} within the budget`)
            }
          }
          if (record.outcome !== null && before.outcome === null) {
            assert.isTrue(change.events.some((event) => event.type === "verification.succeeded"))
            assert.isTrue(Money.atMost(record.outcome.spent, record.proposal!.document.spend))
          }
        })
        assert.deepStrictEqual(EventFold.fold(undefined, log), Revision.toView(record))
      }),
      {
        numRuns: 1000,
        examples: [[[
          // A cancellation while an older revision's execution was undone and the new revision's
          // proposal stood open: the record kept the proposal open on the cancelled Job.
          { n: 2, free: true, approve: false, stale: true, wrongHash: true, call: "ok", ok: false },
          { n: 2, free: true, approve: false, stale: true, wrongHash: true, call: "ok", ok: false },
          { n: 2, free: true, approve: false, stale: true, wrongHash: true, call: "ok", ok: false },
          { n: 0, free: true, approve: false, stale: true, wrongHash: true, call: "ok", ok: false },
          { n: 399354686, free: true, approve: false, stale: true, wrongHash: true, call: "ok", ok: false },
          { n: 3013955, free: false, approve: false, stale: true, wrongHash: true, call: "ok", ok: false },
          { n: 98730576, free: true, approve: false, stale: true, wrongHash: true, call: "ok", ok: false },
          { n: 18326535, free: true, approve: false, stale: true, wrongHash: true, call: "ok", ok: true }
        ]]]
      }
    ))

  it("an undo that fails after a new revision presented its proposal fails the Job and supersedes that proposal", () => {
    const at = (second: number) => new Date(Date.UTC(2026, 10, 24, 0, 0, second)).toISOString()
    const changes: Array<Change> = [Revision.create("job_333333333333333333333333" as JobId, "acct" as AccountId, {
      request: "A table",
      constraints: [budget]
    }, at(0))]
    const then = (next: (record: JobRecord, now: string) => Change) =>
      changes.push(next(changes.at(-1)!.record, at(changes.length)))
    const ref = (record: JobRecord): RunRef => ({ ...runOf(record), revision: record.revision, run: record.run })
    const plan = { provider: "sandbox", quotes, ttlMillis: 60_000 }
    then((record, now) => Revision.interpreted(record, 1, understood, now))
    then((record, now) => Proposal.present(record, ref(record), plan, now))
    then((record, now) => {
      const decided = Approval.decide(
        record,
        {
          proposalHash: record.proposal!.hash,
          jobRevision: 1,
          decision: "approve"
        },
        "key_1",
        now
      )
      return Result.getOrThrow(decided)
    })
    then((record, now) => {
      const claimed = Approval.claim(record, ref(record), now)
      return claimed._tag === "Started" ? claimed.change : assert.fail(claimed._tag)
    })
    then((record, now) =>
      Execution.executed(record, record.execution!.number, { _tag: "Succeeded", reference: "ref-1" }, now)
    )
    then((record, now) =>
      Result.getOrThrow(Revision.changeConstraints(record, { jobRevision: 1, constraints: [] }, now))
    )
    then((record, now) => Revision.interpreted(record, 2, understood, now))
    then((record, now) => Proposal.present(record, ref(record), plan, now))
    assert.strictEqual(changes.at(-1)!.record.proposal?.status, "open")
    then((record, now) =>
      Execution.undone(record, record.execution!.number, { _tag: "Failed", error: "no", final: true }, now)
    )
    const failed = changes.at(-1)!.record
    assert.deepStrictEqual([failed.status, failed.proposal?.status, failed.revision], ["failed", "superseded", 2])
    let position = 0
    const events = changes.flatMap((change) => logOf(change, () => ++position))
    assert.deepStrictEqual(EventFold.fold(undefined, events), Revision.toView(failed))
  })

  it("hashes the RFC 8785 bytes of the document", () => {
    const created = Revision.create("job_222222222222222222222222" as JobId, "acct" as AccountId, {
      request: "A table",
      constraints: [budget]
    }, "2026-11-24T00:00:00.000Z")
    const interpreted = Revision.interpreted(created.record, 1, understood, "2026-11-24T00:00:01.000Z")
    const change = Proposal.present(
      interpreted.record,
      { accountId: "acct" as AccountId, jobId: "job_222222222222222222222222" as JobId, revision: 1, run: 0 },
      { provider: "sandbox", quotes, ttlMillis: 1000 },
      "2026-11-24T00:00:02.000Z"
    )
    const stored = change.proposal!
    assert.match(stored.hash, /^sha256:[0-9a-f]{64}$/)
    assert.strictEqual(stored.bytes, Proposal.canonicalBytes(JSON.parse(stored.bytes)))
    assert.isTrue(stored.bytes.startsWith("{\"constraints\":[{\"id\":"))
    assert.strictEqual(JSON.parse(stored.bytes).spend.amount, "90.00")
    assert.strictEqual(stored.hash, Proposal.hashOf(stored.bytes))
  })
})
