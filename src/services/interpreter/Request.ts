import * as DateTime from "effect/DateTime"
import { Temporal } from "temporal-polyfill"
import type { ConstraintInput, ObjectiveKind } from "../../schema/Constraint.ts"
import { summaryMaxLength } from "../../schema/Constraint.ts"
import type { When } from "./Dates.ts"
import { isReturnTrip, join, readDates } from "./Dates.ts"
import type { Interpretation, InterpretInput } from "./Interpreter.ts"
import { readKind } from "./Kinds.ts"
import { Findings } from "./Missing.ts"
import { readBudget, readMoney } from "./Money.ts"
import type { Place } from "./Places.ts"
import { findPlace, namedZones, readPlaces, readZoneAnswer } from "./Places.ts"
import { decideCounts, readCounts } from "./Quantities.ts"
import { decideTimes } from "./Times.ts"
import { dedupe, mask, normalize } from "./Words.ts"

const readText = (q: string, text: string, now: Temporal.PlainDateTime, kind: ObjectiveKind, context: string) => {
  const lead = q === "q_budget" || q === "q_budget_amount" ? "budget " : q === "q_quantity_people" ? "for " : ""
  const dates = readDates(`${lead}${text}`, now, kind, context)
  const rest = mask(dates.text, dates.whens.map((w) => w.span))
  const money = readMoney(rest)
  return { q, text, whens: dates.whens, money, counts: readCounts(mask(rest, money.map((m) => m.span))) }
}

const sameZone = (a: string, b: string) => {
  const canonical = (zone: string) => new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone
  return canonical(a) === canonical(b)
}

/** What the request says, with the answers given so far applied; pure and deterministic. */
export const interpretRequest = (input: InterpretInput): Interpretation => {
  const latest = new Map(input.answers.map((a) => [a.questionId, normalize(a.answer)]))
  const answers = [...latest].filter(([q, text]) => text !== "" && q !== "q_objective")
  const request = normalize([input.request, latest.get("q_objective") ?? ""].join(". ").replace(/\. $/, ""))
  const context = [request, ...answers.map(([, text]) => text)].join(". ")
  const result = new Findings(latest)
  const caller = input.constraints
  const of = <T extends ConstraintInput["type"]>(type: T) =>
    caller.filter((c): c is Extract<ConstraintInput, { type: T }> => c.type === type)

  const kind = readKind(request)
  const cut = Array.from(request).slice(0, summaryMaxLength - 1).join("")
  const summary = cut.length === request.length ? request : `${cut.replace(/\s+\S{0,99}$/, "")}…`
  const objective = /\p{L}{2,}/u.test(request) && (kind !== "other" || request.split(" ").length > 2) ?
    { kind, summary } :
    null
  if (objective === null) result.ask("objective", "What would you like done?")

  // Places: the request's and the answers'; an answer to "where?" is a place even without "in".
  const answered = answers.flatMap(([q, text]): Array<Place> => {
    const read = readPlaces(text)
    return read.length === 0 && q === "q_location"
      ? [{ text: text.replace(/[.!]+$/, ""), role: "at", vague: false }]
      : read
  })
  const own = readPlaces(request).filter((p) => !(p.vague && latest.has("q_location")))
  const places = dedupe([...own, ...answered], (p) => p.text)
  const callerPlaces = of("location").map((c): Place => ({ text: c.place, role: "at", vague: false }))
  const known = [...callerPlaces, ...places.filter((p) => !p.vague)]
  const found = known.map((p) => ({ ...p, found: findPlace(p.text, context) }))
  const ambiguous = found.find((p) => p.found?._tag === "Ambiguous" && !callerPlaces.some((c) => c.text === p.text))
    ?.found
  if (ambiguous?._tag === "Ambiguous") {
    result.ask("location", `Which ${ambiguous.name} do you mean: ${ambiguous.options.join(" or ")}?`)
  }
  if (callerPlaces.length === 0) { for (const p of known) result.constraints.push({ type: "location", place: p.text }) }

  // The zone: an answer's, else the caller's, else one the words name, else a journey's origin, a
  // delivery's destination, or the first place named.
  const first = kind === "transport" ? "from" : kind === "delivery" ? "to" : "at"
  const zones = [...found].sort((a, b) => Number(b.role === first) - Number(a.role === first))
    .flatMap((p) => (p.found?._tag === "Zone" ? [p.found] : []))
  const answeredZone = latest.has("q_timezone") ? readZoneAnswer(latest.get("q_timezone")!) : undefined
  const callerZone = of("timezone")[0]?.zone
  const named = dedupe(namedZones(context))
  const conflict = answeredZone === undefined &&
    (named.length > 1 || (callerZone !== undefined && named.some((z) => !sameZone(z, callerZone))))
  const zone = conflict ? undefined : answeredZone?._tag === "Zone" ?
    answeredZone.zone :
    callerZone ?? named[0] ?? zones[0]?.zone
  const zoneCountry = zone === undefined ? undefined : findPlace(zone.split("/").pop()!.replaceAll("_", " "))
  const countries = [...zones.map((z) => z.country), zoneCountry?._tag === "Zone" ? zoneCountry.country : ""]

  // Each text read on the place's clock; an answer's facts replace the request's.
  const now = Temporal.Instant.fromEpochMilliseconds(DateTime.toEpochMillis(input.createdAt))
    .toZonedDateTimeISO(zone ?? "UTC").toPlainDateTime()
  const mine = readText("", request, now, kind, context)
  const read = answers.map(([q, text]) => readText(q, text, now, kind, context))
  const table = kind === "reservation" &&
    /\b(?:table|restaurant|dinner|lunch|brunch|breakfast|resturant)\b/i.test(request)
  const counts = decideCounts(mine.counts, read, table, caller, result)
  const times = decideTimes(read.reduce<ReadonlyArray<When>>((whens, a) => merge(now)(whens, a.whens), mine.whens), {
    kind,
    zone,
    zoneConflict: conflict,
    zones: [...(callerZone === undefined ? [] : [callerZone]), ...named],
    returnTrip: isReturnTrip(context),
    caller,
    answered: read.some((a) => a.whens.length > 0),
    noDate: read.some((a) => a.q === "q_date" && /^(?:no|none|any ?time|whenever|flexible)\b/i.test(a.text))
  }, result)
  const perUnit = (unit: string) =>
    /^(?:person|head|guest|adult|seat)$/.test(unit) ? counts.get("people") : unit === "night" ?
      counts.get("nights") ?? times.nights :
      [...counts].find(([u]) => u.includes(unit))?.[1] ??
        (unit === "item" && counts.size === 1 ? [...counts.values()][0] : undefined)
  readBudget(mine.money, read, countries.filter((c) => c !== ""), of("budget").map((c) => c.max), perUnit, result)
  if (times.used && zone !== undefined && zone !== "UTC" && (callerZone === undefined || !sameZone(zone, callerZone))) {
    result.constraints.push({ type: "timezone", zone })
  }
  result.needs(kind, request, places, caller)
  if (times.needsZone && !result.asks("location")) result.ask("timezone", "Which time zone? Name the city or the zone.")
  return result.interpretation(objective)
}

/** An answer's times replace the request's, except that a day alone keeps the time said, and a time alone the day. */
const merge = (now: Temporal.PlainDateTime) => (current: ReadonlyArray<When>, answer: ReadonlyArray<When>) => {
  const [only, given] = [current[0], answer[0]]
  if (current.length !== 1 || answer.length !== 1 || only === undefined || given === undefined) {
    return answer.length === 0 ? current : answer
  }
  const { problem, ...said } = only
  if (given.part === "day" && only.part !== "day" && !given.deadline) return [join(given, said, now)]
  const dayKnown = (only.part === "day" && problem === undefined) || problem === "meridiem"
  return given.part === "time" && dayKnown && given.problem !== "meridiem" ? [join(said, given, now)] : answer
}
