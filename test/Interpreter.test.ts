import { assert, describe, it, layer } from "@effect/vitest"
import type { Layer } from "effect"
import { DateTime, Effect, Result, Schema } from "effect"
import fc from "fast-check"
import type { ConstraintInput } from "../src/schema/Constraint.ts"
import { decodeConstraintInput, Evidence, questionId } from "../src/schema/Constraint.ts"
import type { Answer, Interpretation, InterpretInput } from "../src/services/interpreter/Interpreter.ts"
import { Interpreter, interpretRequest, layerOffline, layerScripted } from "../src/services/interpreter/Interpreter.ts"
import { mentionsIn } from "../src/services/interpreter/Mentions.ts"
import { answered } from "./interpreter/Answers.ts"
import type { Case, Facts } from "./interpreter/Table.ts"
import { requests } from "./interpreter/Table.ts"

/** A Tuesday. */
const createdAt = DateTime.makeUnsafe("2026-03-10T10:00:00Z")

const toAnswers = (answers: Readonly<Record<string, string>> = {}): Array<Answer> =>
  Object.entries(answers).map(([questionId, answer]) => ({ questionId, question: "", answer, revision: 2 }))

const interpret = (
  request: string,
  options: { given?: ReadonlyArray<ConstraintInput>; answers?: Readonly<Record<string, string>>; at?: DateTime.Utc } =
    {}
): Interpretation =>
  interpretRequest({
    request,
    constraints: options.given ?? [],
    answers: toAnswers(options.answers),
    createdAt: options.at ?? createdAt
  })

/** The facts without the words they came from, for comparing readings. */
const bare = (constraints: Interpretation["constraints"]): Array<ConstraintInput> =>
  constraints.map(({ evidence: _, ...c }) => c as ConstraintInput)

const questionIds = (result: Interpretation) => result._tag === "NeedsInput" ? result.questions.map((q) => q.id) : []

const inputOf = (c: Case): InterpretInput => ({
  request: c.request,
  constraints: c.given ?? [],
  answers: toAnswers(c.answers),
  createdAt: c.at === undefined ? createdAt : DateTime.makeUnsafe(c.at)
})

/** Each fact the case names, and whether the interpretation has it. */
const checkFacts = (facts: Facts, result: Interpretation): Array<readonly [string, boolean]> => {
  const of = <T extends ConstraintInput["type"]>(type: T) =>
    bare(result.constraints).filter((c): c is Extract<ConstraintInput, { type: T }> => c.type === type)
  const checks: Array<readonly [string, boolean]> = []
  if (facts.window !== undefined) {
    const [start, end] = typeof facts.window === "string" ? [facts.window, undefined] : facts.window
    checks.push(["window", of("window").some((w) => w.start === start && (end === undefined || w.end === end))])
  }
  if (facts.deadline !== undefined) checks.push(["deadline", of("deadline").some((d) => d.by === facts.deadline)])
  if (facts.zone !== undefined) {
    checks.push([
      "zone",
      facts.zone === null ? of("timezone").length === 0 : of("timezone").some((z) => z.zone === facts.zone)
    ])
  }
  if (facts.budget !== undefined) {
    const budgets = of("budget").map((b) => `${b.max.amount} ${b.max.currency}`)
    checks.push(["budget", facts.budget === null ? budgets.length === 0 : budgets.includes(facts.budget)])
  }
  if (facts.people !== undefined) {
    checks.push(["people", of("quantity").some((q) => q.unit === "people" && q.count === facts.people)])
  }
  if (facts.quantity !== undefined) {
    const [count, unit] = facts.quantity
    checks.push(["quantity", of("quantity").some((q) => q.count === count && q.unit === unit)])
  }
  for (const place of facts.places ?? []) checks.push([`place ${place}`, of("location").some((l) => l.place === place)])
  return checks
}

interface Score {
  askedWhenShould: number
  shouldAsk: number
  proceededWhenShould: number
  shouldProceed: number
  factsRight: number
  facts: number
}

/** How a set of readings compares with what a careful assistant does. */
export const score = (cases: ReadonlyArray<Case>, results: ReadonlyArray<Interpretation>): Score => {
  const s: Score = {
    askedWhenShould: 0,
    shouldAsk: 0,
    proceededWhenShould: 0,
    shouldProceed: 0,
    factsRight: 0,
    facts: 0
  }
  cases.forEach((c, i) => {
    const result = results[i]!
    const asked = questionIds(result)
    if (c.ask.length > 0) {
      s.shouldAsk++
      if (asked.length === c.ask.length && c.ask.every((q) => asked.includes(q))) s.askedWhenShould++
    } else {
      s.shouldProceed++
      if (result._tag === "Understood") s.proceededWhenShould++
    }
    const checks = [
      ...checkFacts(c.facts ?? {}, result),
      ["kind", (result.objective?.kind ?? null) === c.kind] as const
    ]
    s.facts += checks.length
    s.factsRight += checks.filter(([, ok]) => ok).length
  })
  return s
}

const percent = (n: number, d: number) => `${n}/${d} (${d === 0 ? 100 : Math.round((1000 * n) / d) / 10}%)`

const label = (c: Case) =>
  `${c.request}${c.given === undefined ? "" : ` + ${JSON.stringify(c.given)}`}${
    c.answers === undefined ? "" : ` + answers ${JSON.stringify(c.answers)}`
  }${c.at === undefined ? "" : ` at ${c.at}`}`

const table = [...requests, ...answered]

const runTable = (name: string, interpreterLayer: Layer.Layer<Interpreter>) =>
  layer(interpreterLayer)(name, (it) => {
    it.effect("has at least 150 requests and 30 answers that carry several facts", () =>
      Effect.sync(() => {
        assert.isAtLeast(requests.length, 150)
        assert.isAtLeast(answered.length, 30)
      }))
    for (const c of table) {
      it.effect(label(c), () =>
        Effect.gen(function*() {
          const result = yield* (yield* Interpreter).interpret(inputOf(c))
          assert.strictEqual(result.objective?.kind ?? null, c.kind, "kind")
          assert.deepStrictEqual([...questionIds(result)].sort(), [...c.ask].sort(), JSON.stringify(result))
          assert.strictEqual(result._tag, c.ask.length === 0 ? "Understood" : "NeedsInput")
          for (const [fact, ok] of checkFacts(c.facts ?? {}, result)) {
            assert.isTrue(ok, `${fact}: ${JSON.stringify(result.constraints)}`)
          }
        }))
    }
    it.effect("scores the table", () =>
      Effect.gen(function*() {
        const interpreter = yield* Interpreter
        const results = yield* Effect.forEach(table, (c) => interpreter.interpret(inputOf(c)))
        const s = score(table, results)
        console.log(
          `${name}: asked when it should ${percent(s.askedWhenShould, s.shouldAsk)}, proceeded when it should ${
            percent(s.proceededWhenShould, s.shouldProceed)
          }, facts right ${percent(s.factsRight, s.facts)}`
        )
        assert.isAtLeast(s.askedWhenShould + s.proceededWhenShould, 0.85 * table.length)
      }))
  })

describe("Interpreter: the table", () => {
  runTable("layerOffline", layerOffline)
  runTable("layerScripted", layerScripted())
})

const lisbon: ConstraintInput = { type: "timezone", zone: "Europe/Lisbon" }
const newYork: ConstraintInput = { type: "timezone", zone: "America/New_York" }

/** The spans of the request that name a time, a date, an amount, a count or a place and no fact's evidence covers. */
const unreadIn = (c: Case, result: Interpretation) => {
  const evidence = [...result.constraints.flatMap((f) => f.evidence), ...(result.objective?.evidence ?? [])]
    .filter((e) => e.revision === undefined)
  const points = (units: number) => Array.from(c.request.slice(0, units)).length
  // Words that agree with a caller's constraint are read into the caller's fact, not repeated.
  const given = new Set((c.given ?? []).map((g) => g.type))
  const covered = { amount: "budget", count: "quantity", place: "location", date: "window", time: "window" } as const
  return mentionsIn(c.request).filter((m) =>
    !given.has(covered[m.kind]) && !((m.kind === "date" || m.kind === "time") && given.has("deadline")) &&
    !evidence.some((e) => e.start < points(m.span[1]) && points(m.span[0]) < e.end)
  )
}

describe("Interpreter: nothing the person wrote is dropped", () => {
  it("in every proceeding request of the table, each time, date, amount, count and place is a fact's evidence", () => {
    const proceeding = requests.filter((c) => c.ask.length === 0)
    assert.isAtLeast(proceeding.length, 60)
    for (const c of proceeding) {
      const result = interpretRequest(inputOf(c))
      assert.deepStrictEqual(unreadIn(c, result).map((m) => `${m.kind} ${m.text}`), [], c.request)
    }
  })

  it("words no reader takes make the Job ask, quoting them", () => {
    const result = interpret("Dinner for 2 at Cervejaria Ramiro in Lisbon on 2026-13-45 at 8pm")
    assert(result._tag === "NeedsInput")
    const date = result.questions.find((q) => q.id === "q_date")
    assert.include(date?.text, "What does \"2026-13-45\" mean here?")
  })

  it("the detector finds what people write, and what is not a time, an amount or a place stays out", () => {
    const found = (text: string) => mentionsIn(text).map((m) => `${m.kind} ${m.text}`)
    assert.deepStrictEqual(found("dinner for 2 tonight in Paris around 8, max 150 €"), [
      "count 2",
      "date tonight",
      "place Paris",
      "time around 8",
      "amount 150 €"
    ])
    assert.deepStrictEqual(found("a 65\" TV, 4x4, 2-bedroom, all in, top floor, Terminal 3"), [])
  })
})

describe("Interpreter: answers", () => {
  it("an unreadable answer asks again under the same id and says so", () => {
    const result = interpret("Book a table for 2 at Cervejaria Ramiro in Lisbon", {
      answers: { q_date: "when the weather is nice" }
    })
    assert(result._tag === "NeedsInput")
    assert.deepStrictEqual(result.questions.map((q) => q.id), ["q_date"])
    assert.include(result.questions.find((q) => q.id === "q_date")!.text, "could not be read")
  })

  it("the latest answer to a question wins", () => {
    const result = interpretRequest({
      request: "Flight to Paris",
      constraints: [],
      answers: [
        { questionId: "q_date", question: "When?", answer: "tomorrow", revision: 2 },
        { questionId: "q_date", question: "When?", answer: "next Monday", revision: 3 }
      ],
      createdAt
    })
    assert.deepStrictEqual(result.constraints[0]?.evidence, [
      { text: "next Monday", start: 0, end: 11, revision: 3, questionId: "q_date" }
    ])
    assert.deepStrictEqual(bare(result.constraints)[0], {
      type: "window",
      start: "2026-03-16T00:00:00+01:00",
      end: "2026-03-17T00:00:00+01:00"
    })
  })

  it("a currency answer is read like the words: a code, a name, a sign", () => {
    for (const answer of ["EUR", "eur", "euros", "€"]) {
      assert.deepStrictEqual(
        bare(interpret("Spend at most 200 on a gift", { answers: { q_budget_currency: answer } }).constraints),
        [{ type: "budget", max: { amount: "200.00", currency: "EUR" } }],
        answer
      )
    }
  })

  it("an amount without a currency, answered with one, follows the words' currency when they agree", () => {
    const result = interpret("gift under 100 euros, or max 120 euros", { answers: { q_budget: "110" } })
    assert.deepStrictEqual(bare(result.constraints), [{ type: "budget", max: { amount: "110.00", currency: "EUR" } }])
  })

  it("a caller constraint that agrees with the words is not repeated; one stricter than the words wins", () => {
    assert.deepStrictEqual(
      interpret("buy a gift under $200", { given: [{ type: "budget", max: { amount: "200.00", currency: "USD" } }] }),
      {
        _tag: "Understood",
        objective: {
          kind: "purchase",
          summary: "buy a gift under $200",
          evidence: [{ text: "gift", start: 6, end: 10 }]
        },
        constraints: []
      }
    )
  })

  it("compares the words' budget with the caller's exactly, not as floats", () => {
    // As doubles the two amounts are equal: the words would be dropped as agreeing with the caller.
    const given = [{ type: "budget", max: { amount: "123456789012345.6789", currency: "USD" } }] as const
    assert.deepStrictEqual(bare(interpret("buy a gift under $123456789012345.6788", { given }).constraints), [
      { type: "budget", max: { amount: "123456789012345.6788", currency: "USD" } }
    ])
  })
})

describe("Interpreter: layers", () => {
  const input: InterpretInput = {
    request: "Table for 2 at Cervejaria Ramiro in Lisbon tomorrow at 8pm",
    constraints: [],
    answers: [],
    createdAt
  }

  layer(layerOffline)("layerOffline", (it) => {
    it.effect("is the rule-based reader", () =>
      Effect.gen(function*() {
        const interpreter = yield* Interpreter
        const result = yield* interpreter.interpret(input)
        assert.deepStrictEqual(result, interpretRequest(input))
        assert.strictEqual(result._tag, "Understood")
        // What the words say, not only that the layer is the function: tomorrow 8pm in Lisbon, for 2.
        assert.deepInclude(bare(result.constraints), {
          type: "window",
          start: "2026-03-11T20:00:00+00:00",
          end: "2026-03-11T20:01:00+00:00"
        })
        assert.deepInclude(bare(result.constraints), { type: "quantity", count: 2, unit: "people" })
      }))
  })

  const scripted: Interpretation = {
    _tag: "NeedsInput",
    objective: null,
    constraints: [],
    questions: [{ id: "q_objective", text: "What would you like done?" }]
  }
  layer(
    layerScripted({
      [input.request]: scripted,
      "by function": (i) => interpretRequest({ ...i, request: "hello" })
    })
  )(
    "layerScripted",
    (it) => {
      it.effect("answers the script for a scripted request and reads the rest", () =>
        Effect.gen(function*() {
          const interpreter = yield* Interpreter
          assert.deepStrictEqual(yield* interpreter.interpret(input), scripted)
          assert.deepStrictEqual(
            yield* interpreter.interpret({ ...input, request: "by function" }),
            interpretRequest({ ...input, request: "hello" })
          )
          const other = { ...input, request: "Table for 2 on Friday" }
          assert.deepStrictEqual(yield* interpreter.interpret(other), interpretRequest(other))
        }))
    }
  )
})

describe("Constraint schema", () => {
  const ok = (u: unknown) => Result.isSuccess(decodeConstraintInput(u))
  it("accepts each type and refuses excess keys, bad amounts, currencies, times, zones", () => {
    assert.isTrue(ok({ type: "budget", max: { amount: "180.00", currency: "USD" } }))
    assert.isFalse(ok({ type: "budget", max: { amount: "180.00", currency: "USD" }, extra: true }))
    assert.isFalse(ok({ type: "budget", max: { amount: "180.00", currency: "USD", extra: true } }))
    assert.isFalse(ok({ type: "budget", max: { amount: "1e3", currency: "USD" } }))
    assert.isFalse(ok({ type: "budget", max: { amount: "-1", currency: "USD" } }))
    assert.isFalse(ok({ type: "budget", max: { amount: "180.00", currency: "usd" } }))
    assert.isFalse(ok({ type: "budget", max: { amount: "180.00", currency: "XXX" } }))
    assert.isTrue(ok({ type: "deadline", by: "2028-02-29T10:00:00.5-03:30" }))
    assert.isFalse(ok({ type: "deadline", by: "2027-02-29T10:00:00Z" }))
    assert.isFalse(ok({ type: "deadline", by: "2027-02-28T10:00:00" }))
    assert.isTrue(ok({ type: "window", start: "2026-03-12T10:00:00Z", end: "2026-03-12T10:00:00.001Z" }))
    assert.isFalse(ok({ type: "window", start: "2026-03-12T10:00:00Z", end: "2026-03-12T11:00:00+01:00" }))
    assert.isTrue(ok({ type: "location", place: "Lisbon" }))
    assert.isFalse(ok({ type: "location", place: " Lisbon" }))
    assert.isFalse(ok({ type: "location", place: "" }))
    assert.isTrue(ok({ type: "quantity", count: 2 }))
    assert.isTrue(ok({ type: "quantity", count: 2, unit: "people" }))
    assert.isFalse(ok({ type: "quantity", count: 0 }))
    assert.isFalse(ok({ type: "quantity", count: 1.5 }))
    assert.isTrue(ok({ type: "timezone", zone: "Europe/Lisbon" }))
    assert.isFalse(ok({ type: "timezone", zone: "europe/lisbon" }))
    assert.isFalse(ok({ type: "timezone", zone: "+01:00" }))
    assert.isFalse(ok({ type: "timezone", zone: "Mars/Olympus" }))
    assert.isTrue(ok({ type: "note", text: "window seat" }))
    assert.isFalse(ok({ type: "colour", text: "red" }))
  })
})

// ---------------------------------------------------------------------------------------------------
// Properties.

const fragments = {
  kind: ["book a table", "buy", "flight to Paris", "fix my sink", "dentist appointment", "send a parcel", "hello"],
  money: [
    "under $200",
    "€150 max",
    "no more than 300 GBP",
    "1.5k USD",
    "between 100 and 200 dollars",
    "budget 80",
    "¥3000",
    "1.200 euros",
    "€50 per person"
  ],
  when: [
    "tomorrow",
    "next Friday",
    "in 3 days",
    "this weekend",
    "by end of month",
    "at 7",
    "at 7pm",
    "on 12/03",
    "on 12 March at 8",
    "yesterday",
    "2026-12-03",
    "Friday the 13th"
  ],
  count: ["for 4 people", "two tickets", "a dozen eggs", "for 2", "3 tickets"],
  place: ["in Lisbon", "near Shibuya station", "to Berlin", "in Toronto", "from Porto"]
} as const

const composed = fc.tuple(
  fc.constantFrom(...fragments.kind),
  fc.array(fc.constantFrom(...fragments.money, ...fragments.when, ...fragments.count, ...fragments.place), {
    maxLength: 5
  })
).map(([kind, rest]) => [kind, ...rest].join(" "))

const anyText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.string({ unit: "grapheme", maxLength: 200 }),
  fc.string({ unit: fc.constantFrom(..."0123456789,.$€£¥ -/:kKtoamp"), maxLength: 300 }),
  fc.bigInt({ min: 0n, max: 10n ** 40n }).map((n) => `buy a car under $${n} for ${n} people in ${n} days`),
  composed
)

const anyCreatedAt = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2029, 0, 1) }).map((ms) =>
  DateTime.makeUnsafe(ms)
)

const validAnswers: Readonly<Record<string, string>> = {
  [questionId("objective")]: "book a table for 2",
  [questionId("budget.currency")]: "EUR",
  [questionId("budget")]: "150 EUR",
  [questionId("budget.amount")]: "150 EUR",
  [questionId("timezone")]: "Europe/Lisbon",
  [questionId("time")]: "8pm",
  [questionId("date")]: "2030-06-15",
  [questionId("quantity.people")]: "4",
  [questionId("quantity")]: "3",
  [questionId("location")]: "Rua Augusta 10, Lisbon",
  [questionId("location.from")]: "Rua Augusta 10, Lisbon",
  [questionId("location.to")]: "Avenida da Liberdade 100, Lisbon",
  [questionId("event")]: "the Benfica vs Porto match"
}

const aboutIds = new Set(Object.keys(validAnswers))

/** Every fact shows its words: spans of the request or of an answer, in code points, whose text is exactly those. */
const checkEvidence = (input: InterpretInput, evidence: ReadonlyArray<Evidence> | undefined, of: string) => {
  assert.isAbove(evidence?.length ?? 0, 0, `no evidence for ${of}`)
  for (const e of evidence ?? []) {
    assert.isTrue(Result.isSuccess(Schema.decodeUnknownResult(Evidence)(e)), JSON.stringify(e))
    const source = e.revision === undefined ?
      input.request :
      input.answers.findLast((a) => a.revision === e.revision && a.questionId === e.questionId)?.answer
    assert.isDefined(source, `${of}: ${JSON.stringify(e)} points into no answer`)
    assert.strictEqual(Array.from(source!).slice(e.start, e.end).join(""), e.text, of)
  }
}

const checkShape = (result: Interpretation, input?: InterpretInput) => {
  for (const constraint of result.constraints) {
    const { evidence, ...fact } = constraint
    assert.isTrue(Result.isSuccess(decodeConstraintInput(fact)), JSON.stringify(constraint))
    if (input !== undefined) checkEvidence(input, evidence, JSON.stringify(fact))
  }
  if (input !== undefined && result.objective !== null) checkEvidence(input, result.objective.evidence, "objective")
  if (result._tag === "NeedsInput") {
    assert.isAbove(result.questions.length, 0)
    for (const q of result.questions) {
      assert.isTrue(aboutIds.has(q.id), q.id)
      assert.strictEqual(q.id, questionId(q.about!))
      assert.isAbove(q.text.length, 0)
    }
    assert.strictEqual(new Set(result.questions.map((q) => q.id)).size, result.questions.length)
  } else {
    assert.isNotNull(result.objective)
  }
  if (result.objective !== null) assert.isAbove(result.objective.summary.length, 0)
}

describe("Interpreter: properties", () => {
  it("never throws, is deterministic, and produces only constraints the schema accepts", () => {
    fc.assert(
      fc.property(anyText, anyCreatedAt, fc.constantFrom<ReadonlyArray<ConstraintInput>>([], [lisbon], [newYork]), (
        request,
        at,
        given
      ) => {
        const input: InterpretInput = { request, constraints: given, answers: [], createdAt: at }
        const first = interpretRequest(input)
        checkShape(first, input)
        assert.deepStrictEqual(interpretRequest(input), first)
      }),
      { numRuns: 400 }
    )
  })

  it("reads 10,000 characters of anything", () => {
    for (
      const request of [
        "a".repeat(10_000),
        "9".repeat(10_000),
        "1,".repeat(5_000),
        "$".repeat(10_000),
        "Lisbon ".repeat(1_428),
        "at 7 ".repeat(2_000),
        "in ".repeat(3_333),
        "🙂".repeat(5_000),
        "\uD800".repeat(10_000),
        "Book a table for 4 in Lisbon tomorrow at 7pm under €200. ".repeat(175)
      ]
    ) {
      checkShape(interpret(request), { request, constraints: [], answers: [], createdAt })
    }
  })

  it("question ids do not depend on the wording around the fact asked about", () => {
    fc.assert(
      fc.property(fc.constantFrom("Please", "Hi,", "Could you", ""), fc.constantFrom("table", "restaurant", "dinner"), (
        lead,
        noun
      ) => {
        const result = interpret(`${lead} book a ${noun} somewhere nice`)
        assert.deepStrictEqual(questionIds(result), ["q_location", "q_date", "q_quantity_people"])
      })
    )
  })

  it("a count read twice alike takes no answer about another unit (found by the property below)", () => {
    const request = "hello a dozen eggs two tickets in Toronto a dozen eggs"
    const createdAt = DateTime.makeUnsafe("2000-01-01T00:00:00.000Z")
    const first = interpretRequest({ request, constraints: [], answers: [], createdAt })
    assert.deepStrictEqual(questionIds(first), ["q_quantity"])
    const answers: Array<Answer> = [{ questionId: "q_quantity", question: "How many?", answer: "3", revision: 2 }]
    const result = interpretRequest({ request, constraints: [], answers, createdAt })
    assert.strictEqual(result._tag, "Understood", JSON.stringify(result))
    const counts = result.constraints.flatMap((c) => c.type === "quantity" ? [`${c.count} ${c.unit}`] : [])
    assert.includeMembers(counts, ["12 eggs", "3 tickets"])
  })

  it("answering every question with a valid answer ends in Understood, never asking the same question again", () => {
    fc.assert(
      fc.property(composed, anyCreatedAt, (request, at) => {
        const answers: Array<Answer> = []
        const answered = new Set<string>()
        let result = interpretRequest({ request, constraints: [], answers, createdAt: at })
        for (let round = 0; round < 10 && result._tag === "NeedsInput"; round++) {
          for (const q of result.questions) {
            assert.isFalse(
              answered.has(q.id),
              `${q.id} asked again after a valid answer, for ${JSON.stringify(request)}`
            )
            answers.push({ questionId: q.id, question: q.text, answer: validAnswers[q.id]!, revision: round + 2 })
          }
          for (const q of result.questions) answered.add(q.id)
          const input = { request, constraints: [], answers, createdAt: at }
          result = interpretRequest(input)
          checkShape(result, input)
        }
        assert.strictEqual(result._tag, "Understood", JSON.stringify(result))
      }),
      { numRuns: 300 }
    )
  })
})
