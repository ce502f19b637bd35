import type { ConstraintInput, Objective, Question } from "../../schema/Constraint.ts"
import { dedupe, dedupeConstraints, readBudget, readZoneAnswer, sameZone } from "./Budget.ts"
import { readDates } from "./Dates.ts"
import { Findings, id, latestAnswers, questionOrder } from "./Findings.ts"
import type { Interpretation, InterpretInput } from "./Interpreter.ts"
import { readKind, summarise } from "./Kinds.ts"
import { zoneCurrency } from "./PlaceWords.ts"
import { readQuantities } from "./Quantities.ts"
import { Reader } from "./Reader.ts"

// ---------------------------------------------------------------------------------------------------
// From readings to constraints and questions.

/** What the request says, with the answers given so far applied; pure and deterministic. */
export const interpretRequest = (input: InterpretInput): Interpretation => {
  const answers = latestAnswers(input.answers)
  const objectiveAnswer = answers.get(id("objective"))
  const requestText = objectiveAnswer === undefined ? input.request : `${input.request}\n${objectiveAnswer}`
  const text = requestText.toWellFormed().normalize("NFKC").replaceAll("’", "'")
  const reader = new Reader(text)
  const reading = reader.read()
  const result = new Findings()

  const caller = input.constraints
  const callerOf = <T extends ConstraintInput["type"]>(type: T) =>
    caller.filter((c): c is Extract<ConstraintInput, { type: T }> => c.type === type)

  // ---- objective
  const hasWords = reader.tokens.some((t) => t.kind === "word" && Array.from(t.text).length >= 2)
  const kind = readKind(reader.tokens)
  // A greeting or a stray word is no request: "hello", "test".
  const understandable = hasWords &&
    (kind !== "other" || reading.words > 2 ||
      reading.money.length + reading.whens.length + reading.places.length + reading.quantities.length > 0)
  const objective: Objective | null = understandable ? { kind, summary: summarise(text) } : null
  if (objective === null) {
    result.ask("objective", "What would you like done?", objectiveAnswer)
  }

  // ---- places
  const callerPlaces = callerOf("location")
  const places = callerPlaces.length > 0 ? [] : dedupe(reading.places.map((p) => p.place))
  for (const place of places) result.constraints.push({ type: "location", place })

  // ---- time zone: an answer, else the caller's, else one the words name, else one the places share.
  const callerZone = callerOf("timezone")[0]?.zone
  const zoneAnswer = answers.get(id("timezone"))
  const answeredZone = zoneAnswer === undefined ? undefined : readZoneAnswer(zoneAnswer)
  const explicitZones = dedupe(reading.zones)
  const placeZones = dedupe(
    [...reading.places, ...callerPlaces.flatMap((p) => new Reader(p.place).read().places)].flatMap((p) =>
      p.zone === undefined ? [] : [p.zone]
    ).concat(
      callerPlaces.flatMap((p) => {
        const r = new Reader(p.place)
        const city = r.cityAt(0)
        return city === undefined ? [] : [city.zone]
      })
    )
  )
  let zone: string | undefined
  let zoneFromText = false
  let zoneConflict = false
  if (answeredZone !== undefined) {
    zone = answeredZone
    zoneFromText = zone !== callerZone
  } else if (callerZone !== undefined) {
    zone = callerZone
    zoneConflict = explicitZones.some((z) => !sameZone(z, callerZone))
  } else if (explicitZones.length === 1) {
    zone = explicitZones[0]
    zoneFromText = true
  } else if (explicitZones.length > 1) {
    zoneConflict = true
  } else if (placeZones.length === 1) {
    zone = placeZones[0]
    zoneFromText = true
  }

  // ---- currency context: places, zones.
  const context = new Set<string>()
  for (const p of reading.places) if (p.currency !== undefined) context.add(p.currency)
  for (const p of callerPlaces) {
    for (const q of new Reader(p.place).read().places) if (q.currency !== undefined) context.add(q.currency)
    const r = new Reader(p.place)
    const city = r.cityAt(0)
    if (city !== undefined) {
      const c = zoneCurrency(city.zone)
      if (c !== undefined) context.add(c)
    }
    const country = r.countryAt(0)
    if (country !== undefined) context.add(country.currency)
  }
  for (const z of [zone, callerZone, ...placeZones]) {
    const c = z === undefined ? undefined : zoneCurrency(z)
    if (c !== undefined) context.add(c)
  }

  // ---- budget
  readBudget(reading, caller, answers, context, result)

  // ---- quantities
  readQuantities(reading, kind, reader.tokens, caller, answers, result)

  // ---- dates and times
  readDates(reading, kind, input, answers, { zone, zoneFromText, zoneConflict, callerZone, explicitZones }, result)

  // ---- answer
  const order = (c: ConstraintInput) =>
    ["budget", "deadline", "window", "location", "quantity", "timezone", "note"].indexOf(c.type)
  const constraints = dedupeConstraints(result.constraints).sort((a, b) => order(a) - order(b))
  if (result.questions.size === 0 && objective !== null) return { _tag: "Understood", objective, constraints }
  const questions: Array<Question> = questionOrder.filter((about) => result.questions.has(about)).map((about) => ({
    id: id(about),
    text: result.questions.get(about)!,
    about
  }))
  return { _tag: "NeedsInput", objective, constraints, questions }
}
