import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import type { Evidence } from "../src/schema/Constraint.ts"
import * as Interpreter from "../src/services/interpreter/Interpreter.ts"
import type { Interpretation, InterpretedConstraint, InterpretInput } from "../src/services/interpreter/Interpreter.ts"
import { baseUrl } from "./support/Http.ts"
import {
  call,
  createJob,
  expectError,
  newIdempotencyKey,
  newKey,
  previewServerWith,
  servicesLive,
  servicesTest,
  settled,
  tableRequest
} from "./support/JobsHttp.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

/**
 * Every interpreted fact carries the words it was read from, in the Job, its point-in-time views, its
 * events and its proposal; a caller's constraint never does. The interpretation is scripted (the
 * rule-based reader is not what is tested here): facts of the request, and one of an answer.
 */

// Characters outside the BMP before the words: offsets count code points, not UTF-16 units.
const request = "😀🍝 Dinner for 2 in Paris on Friday, somewhere quiet"
const answer = "🕗 at 8pm please"

const codePoints = (text: string, start: number, end: number) => Array.from(text).slice(start, end).join("")

/** The span of `words` in `text`, as code points, citing the answer (by its revision and question) when it is one. */
const span = (text: string, words: string, answered?: { readonly revision: number; readonly questionId: string }) => {
  const at = text.indexOf(words)
  if (at === -1) throw new Error(`${JSON.stringify(words)} is not in ${JSON.stringify(text)}`)
  const start = Array.from(text.slice(0, at)).length
  const evidence: Evidence = {
    text: words,
    start,
    end: start + Array.from(words).length,
    ...(answered === undefined ? {} : { revision: answered.revision, questionId: answered.questionId })
  }
  return evidence
}

const dinner = (input: InterpretInput): Interpretation => {
  const objective = {
    kind: "reservation" as const,
    summary: "Dinner for 2 in Paris",
    evidence: [span(request, "Dinner")] as const
  }
  const constraints: ReadonlyArray<InterpretedConstraint> = [
    { type: "quantity", count: 2, unit: "people", evidence: [span(request, "for 2")] },
    { type: "location", place: "Paris", evidence: [span(request, "in Paris")] },
    { type: "timezone", zone: "Europe/Paris", evidence: [span(request, "Paris")] }
  ]
  const time = input.answers.find((given) => given.questionId === "q_time")
  if (time === undefined) {
    return {
      _tag: "NeedsInput",
      objective,
      constraints,
      questions: [{ id: "q_time", text: "At what time on Friday?", about: "time" }]
    }
  }
  return {
    _tag: "Understood",
    objective,
    constraints: [...constraints, {
      type: "window",
      start: "2030-01-04T20:00:00+01:00",
      end: "2030-01-04T22:00:00+01:00",
      evidence: [span(request, "on Friday"), span(time.answer, "at 8pm", time)]
    }]
  }
}

const note = { type: "note", text: "a table by the window if they have one" }

interface Shown {
  readonly source: string
  readonly evidence?: ReadonlyArray<Evidence>
}

/** What these tests read of an event: the constraints and objective it read, the answers it took. */
interface ShownEvent {
  readonly type: string
  readonly position: number
  readonly jobRevision: number
  readonly data: {
    readonly constraints: ReadonlyArray<Shown>
    readonly objective: Shown
    readonly answers: ReadonlyArray<Given>
  }
}

/** An answer as `job.revised` lists it. */
interface Given {
  readonly questionId: string
  readonly answer: string
  readonly revision: number
}

/**
 * Every interpreted constraint and the objective have evidence whose text is the code points they name:
 * of `words` (the request), or of the answer they cite (by the revision it made and its question).
 */
const expectEvidence = (
  job: { readonly constraints: ReadonlyArray<Shown>; readonly objective: Shown | null },
  answers: ReadonlyArray<Given> = [],
  words: string = request
) => {
  const check = (evidence: ReadonlyArray<Evidence> | undefined) => {
    assert.isAbove(evidence?.length ?? 0, 0, "no evidence")
    for (const cited of evidence!) {
      const source = cited.revision === undefined
        ? words
        : answers.find((given) => given.revision === cited.revision && given.questionId === cited.questionId)?.answer
      assert.strictEqual(
        source === undefined ? undefined : codePoints(source, cited.start, cited.end),
        cited.text,
        `${JSON.stringify(cited)} is not in the request or the answer it names`
      )
    }
  }
  const interpreted = job.constraints.filter((constraint) => constraint.source === "interpreted")
  assert.isAbove(interpreted.length, 0)
  interpreted.forEach((constraint) => check(constraint.evidence))
  check(job.objective?.evidence)
  for (const constraint of job.constraints.filter((constraint) => constraint.source === "caller")) {
    assert.notProperty(constraint, "evidence")
  }
}

const evidenceEverywhere = () =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    const key = yield* newKey()
    const created = yield* createJob(url, key, { request, constraints: [note] })
    assert.strictEqual(created.status, 201, created.body)
    const job = JSON.parse(created.body)
    assert.notProperty(job.constraints[0], "evidence")

    const asked = yield* settled(url, key, job.id)
    assert.strictEqual(asked.status, "awaiting_input", JSON.stringify(asked))
    expectEvidence(asked)
    assert.deepStrictEqual(
      asked.constraints.filter((c: Shown) => c.source === "interpreted").map((c: Shown) => c.evidence),
      [[span(request, "for 2")], [span(request, "in Paris")], [span(request, "Paris")]]
    )
    assert.deepStrictEqual(asked.objective.evidence, [{ text: "Dinner", start: 3, end: 9 }])

    const answered = yield* call(url, {
      path: `/v1/jobs/${job.id}/input`,
      key,
      idempotencyKey: newIdempotencyKey(),
      body: { jobRevision: 1, answers: { q_time: answer } }
    })
    assert.strictEqual(answered.status, 200, answered.body)
    const planned = yield* settled(url, key, job.id)
    assert.strictEqual(planned.status, "awaiting_approval", JSON.stringify(planned))
    const answers = [{ questionId: "q_time", answer, revision: 2 }]
    expectEvidence(planned, answers)
    const window = planned.constraints.find((c: { type: string }) => c.type === "window")
    assert.deepStrictEqual(window.evidence, [span(request, "on Friday"), {
      text: "at 8pm",
      start: 2,
      end: 8,
      revision: 2,
      questionId: "q_time"
    }])

    // The point-in-time views: at the end of revision 1, and after the event that interpreted it.
    const revisionOne = JSON.parse((yield* call(url, { path: `/v1/jobs/${job.id}?revision=1`, key })).body)
    const { asOf, ...atRevisionOne } = revisionOne
    assert.deepStrictEqual(atRevisionOne, asked)
    const events: ReadonlyArray<ShownEvent> = JSON.parse(
      (yield* call(url, { path: `/v1/jobs/${job.id}/events?limit=1000`, key })).body
    ).data
    const requested = events.find((event) => event.type === "job.input_requested")!
    assert.isAtMost(requested.position, asOf.position)
    const { asOf: _at, ...atPosition } = JSON.parse(
      (yield* call(url, { path: `/v1/jobs/${job.id}?at=${requested.position}`, key })).body
    )
    assert.deepStrictEqual(atPosition, asked)
    const { asOf: _now, ...atRevisionTwo } = JSON.parse(
      (yield* call(url, { path: `/v1/jobs/${job.id}?revision=2`, key })).body
    )
    assert.deepStrictEqual(atRevisionTwo, planned)

    // The events: the answer names the revision it made; what was read carries its words.
    assert.deepStrictEqual(requested.data.constraints, asked.constraints.slice(1))
    assert.deepStrictEqual(requested.data.objective, asked.objective)
    const revised = events.find((event) => event.type === "job.revised")!
    assert.strictEqual(revised.jobRevision, 2)
    assert.deepStrictEqual(
      revised.data.answers.map(({ answer, questionId, revision }) => ({ questionId, answer, revision })),
      answers
    )
    const interpreted = events.find((event) => event.type === "job.interpreted")!
    expectEvidence({ constraints: interpreted.data.constraints, objective: interpreted.data.objective }, answers)
    assert.deepStrictEqual(interpreted.data.constraints, planned.constraints.slice(1))

    // The proposal: its constraints are the Job's, words and all, and its hash names bytes that hold them.
    const document = planned.proposal.document
    assert.deepStrictEqual(document.constraints, planned.constraints)
    assert.deepStrictEqual(document.objective, planned.objective)
    expectEvidence(document, answers)
    const bytes = (yield* call(url, { path: `/v1/jobs/${job.id}/proposals/${planned.proposal.proposalHash}`, key }))
      .body
    assert.strictEqual(
      `sha256:${createHash("sha256").update(bytes, "utf8").digest("hex")}`,
      planned.proposal.proposalHash
    )
    assert.deepStrictEqual(JSON.parse(bytes), document)
    // No budget: the offer is priced where the dinner is.
    assert.strictEqual(document.spend.currency, "EUR")
  })

const callersNeverSendEvidence = () =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    const key = yield* newKey()
    const withEvidence = { ...note, evidence: [{ text: "Dinner", start: 3, end: 9 }] }
    const message = expectError(
      yield* createJob(url, key, { request, constraints: [withEvidence] }),
      422,
      "invalid_request"
    )
    assert.include(message, "constraints[0]")
    const job = JSON.parse((yield* createJob(url, key, { request, constraints: [note] })).body)
    yield* settled(url, key, job.id)
    expectError(
      yield* call(url, {
        path: `/v1/jobs/${job.id}/constraints`,
        key,
        idempotencyKey: newIdempotencyKey(),
        body: { jobRevision: 1, constraints: [withEvidence] }
      }),
      422,
      "invalid_request"
    )
    const list = JSON.parse((yield* call(url, { path: "/v1/jobs", key })).body)
    assert.strictEqual(list.data.length, 1)
    assert.strictEqual(list.data[0].jobRevision, 1)
  })

/** Whatever the rule-based reader reads (its exact reading is its own tests' business), it cites its words. */
const readerCitesItsWords = () =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    const key = yield* newKey()
    const job = JSON.parse((yield* createJob(url, key)).body)
    const asked = yield* settled(url, key, job.id)
    assert.strictEqual(asked.status, "awaiting_input", JSON.stringify(asked))
    expectEvidence(asked, [], tableRequest)
    const questionId = asked.questions[0].id
    const answered = yield* call(url, {
      path: `/v1/jobs/${job.id}/input`,
      key,
      idempotencyKey: newIdempotencyKey(),
      body: { jobRevision: 1, answers: { [questionId]: "next Friday at 8pm" } }
    })
    assert.strictEqual(answered.status, 200, answered.body)
    const planned = yield* settled(url, key, job.id)
    const events: ReadonlyArray<ShownEvent> = JSON.parse(
      (yield* call(url, { path: `/v1/jobs/${job.id}/events?limit=1000`, key })).body
    ).data
    const answers = events.flatMap((event) => event.type === "job.revised" ? event.data.answers ?? [] : [])
    assert.deepStrictEqual(answers.map((given) => [given.questionId, given.revision]), [[questionId, 2]])
    expectEvidence(planned, answers, tableRequest)
  })

const interpreter = Interpreter.layerScripted({ [request]: dinner })

layer(previewServerWith(servicesTest(interpreter)), { excludeTestServices: true, timeout: "60 seconds" })(
  "evidence over HTTP (in memory)",
  (it) => {
    it.effect(
      "shows the words of every interpreted fact in the Job, its views, its events and its proposal",
      evidenceEverywhere
    )
    it.effect("refuses evidence in a caller's constraint (422)", callersNeverSendEvidence)
    it.effect("shows the rule-based reader's words for each fact it reads", readerCitesItsWords)
  }
)

layer(previewServerWith(servicesLive(interpreter)), { excludeTestServices: true, timeout: "120 seconds" })(
  `evidence over HTTP (${TestDatabase.kind})`,
  (it) => {
    it.effect(
      "shows the words of every interpreted fact in the Job, its views, its events and its proposal",
      evidenceEverywhere
    )
  }
)
