import { assert, describe, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import fc from "fast-check"
import type { AccountId } from "../src/schema/ApiKey.ts"
import type { Job, JobId } from "../src/schema/Job.ts"
import type { JobEvent } from "../src/schema/JobEvent.ts"
import type { Interpretation } from "../src/services/interpreter/Interpreter.ts"
import * as EventFold from "../src/services/jobs/rules/EventFold.ts"
import type { Change, JobRecord } from "../src/services/jobs/rules/JobRecord.ts"
import { noWork, StoredJobRecord } from "../src/services/jobs/rules/JobRecord.ts"
import * as Revision from "../src/services/jobs/rules/Revision.ts"

/**
 * The point-in-time view folds a Job's events: for every change the rules make, the fold of its
 * events from the Job before it gives exactly the Job after it (`toView` of the change's record), on
 * every path, including those a stored snapshot usually covers.
 */

const note = (text: string) => ({ type: "note" as const, text })
const words = (text: string, start: number) => [{ text, start, end: start + text.length }] as const
const objective = { kind: "reservation" as const, summary: "A table", evidence: words("table", 2) }
const asking = (ids: ReadonlyArray<string>): Interpretation => ({
  _tag: "NeedsInput",
  objective,
  constraints: [{ type: "quantity", count: 2, evidence: words("A", 0) }],
  questions: ids.map((id) => ({ id, text: `What ${id}?` }))
})
const understood: Interpretation = {
  _tag: "Understood",
  objective,
  // As if read from an answer ("soon") that made revision 2.
  constraints: [{ type: "location", place: "Porto", evidence: [{ text: "soon", start: 0, end: 4, revision: 2 }] }]
}

type Step =
  | { readonly _tag: "constraints"; readonly notes: ReadonlyArray<string> }
  | { readonly _tag: "answer"; readonly all: boolean }
  | { readonly _tag: "interpret"; readonly questions: ReadonlyArray<string> }
  | { readonly _tag: "cancel" }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 2 }).map((notes) => ({ _tag: "constraints", notes }) as const),
  fc.boolean().map((all) => ({ _tag: "answer", all }) as const),
  fc.subarray(["q_date", "q_time"]).map((questions) => ({ _tag: "interpret", questions }) as const),
  fc.constant({ _tag: "cancel" } as const)
)

const apply = (record: JobRecord, s: Step, now: string): Change | undefined => {
  const result = s._tag === "constraints"
    ? Revision.changeConstraints(record, { jobRevision: record.revision, constraints: s.notes.map(note) }, now)
    : s._tag === "answer"
    ? Revision.answer(record, {
      jobRevision: record.revision,
      answers: Object.fromEntries((s.all ? record.questions : record.questions.slice(0, 1)).map((q) => [q.id, "soon"]))
    }, now)
    : s._tag === "cancel"
    ? Revision.cancel(record, now)
    : Result.succeed(
      Revision.interpreted(record, record.revision, s.questions.length ? asking(s.questions) : understood, now)
    )
  return Result.isSuccess(result) ? result.success : undefined
}

describe("EventFold.fold", () => {
  it("gives, for every change, the Job the change leaves", () =>
    fc.assert(
      fc.property(fc.array(step, { maxLength: 25 }), (steps) => {
        let position = 0
        const eventsOf = (change: Change, at: string): ReadonlyArray<JobEvent> =>
          change.events.map((event) => ({
            position: ++position,
            jobId: change.record.id,
            jobRevision: change.record.revision,
            type: event.type,
            data: JSON.parse(JSON.stringify(event.data)),
            occurredAt: at
          }))
        const start = new Date(Date.UTC(2026, 10, 24)).getTime()
        const created = Revision.create("job_1" as JobId, "acct" as AccountId, {
          request: "A table",
          constraints: [note("a")]
        }, new Date(start).toISOString())
        let record = created.record
        let view: Job | undefined = EventFold.fold(undefined, eventsOf(created, record.updatedAt))
        assert.deepStrictEqual(view, Revision.toView(record))
        steps.forEach((s, i) => {
          const change = apply(record, s, new Date(start + 1000 * (i + 1)).toISOString())
          if (change === undefined || change.events.length === 0) return
          record = change.record
          view = EventFold.fold(view, eventsOf(change, record.updatedAt))
          assert.deepStrictEqual(view, Revision.toView(record), `after ${JSON.stringify(s)}`)
        })
      }),
      { numRuns: 500 }
    ))
})

const fromStored = Schema.decodeUnknownSync(StoredJobRecord)

describe("JobRecord.StoredJobRecord", () => {
  it("reads an answer stored without the revision it made as made by the record's revision", () => {
    const created = Revision.create("job_111111111111111111111111" as JobId, "acct" as AccountId, {
      request: "A table",
      constraints: []
    }, "2026-11-24T00:00:00.000Z").record
    const asked = Revision.interpreted(created, 1, asking(["q_date", "q_time"]), "2026-11-24T00:00:01.000Z").record
    const partly = Result.getOrThrow(
      Revision.answer(asked, { jobRevision: 1, answers: { q_date: "Friday" } }, "2026-11-24T00:00:02.000Z")
    ).record
    assert.deepStrictEqual(partly.answers.map((answer) => answer.revision), [2])
    // As stored before answers carried their revision.
    const stored = JSON.stringify({
      ...partly,
      answers: partly.answers.map(({ revision: _revision, ...answer }) => answer)
    })
    const read = fromStored(stored)
    assert.deepStrictEqual(read.answers, partly.answers)
    const next = Result.getOrThrow(
      Revision.answer(read, { jobRevision: 2, answers: { q_time: "8pm" } }, "2026-11-24T00:00:03.000Z")
    ).record
    assert.deepStrictEqual(next.answers.map((answer) => `${answer.questionId}@${answer.revision}`), [
      "q_date@2",
      "q_time@3"
    ])
    assert.deepStrictEqual(fromStored(JSON.stringify(next)), next)
  })

  it("reads a record of Part 1, which kept none of the work's members, with their starting values", () => {
    const created = Revision.create("job_222222222222222222222222" as JobId, "acct" as AccountId, {
      request: "A table",
      constraints: [note("by the window")]
    }, "2026-11-24T00:00:00.000Z").record
    const asked = Revision.interpreted(created, 1, asking(["q_date"]), "2026-11-24T00:00:01.000Z").record
    const answered = Result.getOrThrow(
      Revision.answer(asked, { jobRevision: 1, answers: { q_date: "Friday" } }, "2026-11-24T00:00:02.000Z")
    ).record
    // Every member Part 1 wrote, and no other; its answers without the revision they made.
    const partOne = {
      id: answered.id,
      accountId: answered.accountId,
      revision: answered.revision,
      status: answered.status,
      request: answered.request,
      callerConstraints: answered.callerConstraints,
      interpretedConstraints: answered.interpretedConstraints,
      objective: answered.objective,
      questions: answered.questions,
      answers: answered.answers.map(({ questionId, question, answer }) => ({ questionId, question, answer })),
      createdAt: answered.createdAt,
      updatedAt: answered.updatedAt
    }
    const read = fromStored(JSON.stringify(partOne))
    assert.deepStrictEqual(read, { ...partOne, ...noWork, answers: answered.answers })
    assert.deepStrictEqual(read.answers.map((answer) => answer.revision), [2])
  })

  it("reads an execution stored before undo attempts were counted as one with none", () => {
    const created = Revision.create("job_333333333333333333333333" as JobId, "acct" as AccountId, {
      request: "A table",
      constraints: []
    }, "2026-11-24T00:00:00.000Z").record
    const execution = {
      number: 1,
      proposalHash: `sha256:${"a".repeat(64)}`,
      offerId: "offer_1",
      key: "job_333333333333333333333333/1",
      revision: 1,
      run: 1,
      phase: "undoing",
      reference: "ref_1",
      attempts: 2,
      undoReason: null
    }
    const read = fromStored(JSON.stringify({ ...created, execution }))
    assert.deepStrictEqual<unknown>(read.execution, { ...execution, undoAttempts: 0 })
    assert.deepStrictEqual(fromStored(JSON.stringify(read)), read)
  })

  it("refuses a record that is not one, instead of reading it as one", () => {
    const created = Revision.create("job_444444444444444444444444" as JobId, "acct" as AccountId, {
      request: "A table",
      constraints: []
    }, "2026-11-24T00:00:00.000Z").record
    const { status: _status, ...statusless } = created
    for (
      const stored of [
        "{",
        JSON.stringify(statusless),
        JSON.stringify({ ...created, status: "lost" }),
        JSON.stringify({ ...created, id: "job_1" }),
        JSON.stringify({ ...created, run: "1" })
      ]
    ) {
      assert.throws(() => fromStored(stored), /Expected|Missing key/, stored)
    }
  })
})
