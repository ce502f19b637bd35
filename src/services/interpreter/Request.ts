import { DateTime } from "effect"
import { Temporal } from "temporal-polyfill"
import type { ConstraintInput, Objective, ObjectiveKind, QuestionAbout } from "../../schema/Constraint.ts"
import { questionId, summaryMaxLength } from "../../schema/Constraint.ts"
import { readBudget } from "./Budget.ts"
import type { When } from "./Dates.ts"
import { isReturnTrip, readDates } from "./Dates.ts"
import type { Interpretation, InterpretInput } from "./Interpreter.ts"
import { readKind } from "./Kinds.ts"
import { Findings } from "./Missing.ts"
import { readMoney } from "./Money.ts"
import type { Found, Place } from "./Places.ts"
import { findPlace, namedZones, readPlaces, readZoneAnswer } from "./Places.ts"
import { decideCounts, readCounts } from "./Quantities.ts"
import { decideTimes } from "./Times.ts"
import { dedupe, mask, normalize } from "./Words.ts"

/** What one text says: the request, or one answer, read by the same readers. */
const readText = (text: string, now: Temporal.PlainDateTime, kind: ObjectiveKind, context: string) => {
  const dates = readDates(text, now, kind, context)
  const rest = mask(dates.text, dates.whens.map((w) => w.span))
  const money = readMoney(rest)
  return { whens: dates.whens, money, counts: readCounts(mask(rest, money.map((m) => m.span))) }
}

const summarise = (text: string): string => {
  const cut = Array.from(text).slice(0, summaryMaxLength - 1).join("")
  return cut.length === text.length ? text : `${cut.replace(/\s+\S{0,99}$/, "").trimEnd()}…`
}

const zoneCountry = (zone: string | undefined) => {
  const found = zone === undefined ? undefined : findPlace(zone.split("/").pop()!.replaceAll("_", " "))
  return found?._tag === "Zone" && found.zone === zone ? [found.country] : []
}

/** What the request says, with the answers given so far applied; pure and deterministic. */
export const interpretRequest = (input: InterpretInput): Interpretation => {
  const latest = new Map(
    input.answers.filter((a, i, all) => all.findLastIndex((b) => b.questionId === a.questionId) === i)
      .map((a) => [a.questionId, normalize(a.answer)])
  )
  const answers = [...latest.entries()].filter(([, text]) => text !== "")
  const answer = (about: QuestionAbout) => latest.get(questionId(about))
  const request = normalize([input.request, answer("objective") ?? ""].join(". ").replace(/\. $/, ""))
  const context = [request, ...answers.map(([, text]) => text)].join(". ")
  const result = new Findings(latest)
  const caller = input.constraints
  const callerOf = <T extends ConstraintInput["type"]>(type: T) =>
    caller.filter((c): c is Extract<ConstraintInput, { type: T }> => c.type === type)

  const kind = readKind(request)
  const meaningful = /\p{L}{2,}/u.test(request) && (kind !== "other" || request.split(" ").length > 2)
  const objective: Objective | null = meaningful ? { kind, summary: summarise(request) } : null
  if (objective === null) result.ask("objective", "What would you like done?")

  // ---- places: the request's, then an answer's; an answer to "where?" is a place even without "in".
  const locationAnswer = answer("location")
  const answeredPlaces = answers.filter(([q]) => q !== questionId("objective")).flatMap(([q, text]) => {
    const read = readPlaces(text)
    return read.length === 0 && q === questionId("location")
      ? [{ text: text.replace(/[.!]+$/, ""), role: "at", vague: false } as Place]
      : read
  })
  const requestPlaces = readPlaces(request).filter((p) => !(locationAnswer !== undefined && p.vague))
  const places = dedupe([...requestPlaces, ...answeredPlaces], (p) => p.text)
  const callerPlaces = callerOf("location").map((c): Place => ({ text: c.place, role: "at", vague: false }))
  const known = places.filter((p) => !p.vague)
  const found = new Map<Place, Found | undefined>(
    [...known, ...callerPlaces].map((p) => [p, findPlace(p.text, context)])
  )
  const ambiguous = [...found.entries()].find(([p, f]) => f?._tag === "Ambiguous" && !callerPlaces.includes(p))
  if (ambiguous !== undefined && ambiguous[1]?._tag === "Ambiguous") {
    const { name, options } = ambiguous[1]
    result.ask("location", `Which ${name} do you mean: ${options.join(" or ")}?`)
  }
  if (callerPlaces.length === 0) { for (const p of known) result.constraints.push({ type: "location", place: p.text }) }

  // ---- time zone: an answer, else the caller's, else one the words name, else the place's.
  const zoneOf = (p: Place) => {
    const f = found.get(p)
    return f?._tag === "Zone" ? f : undefined
  }
  const zoneAnswer = answer("timezone")
  const answeredZone = zoneAnswer === undefined ? undefined : readZoneAnswer(zoneAnswer)
  const callerZone = callerOf("timezone")[0]?.zone
  const named = dedupe(namedZones(context))
  const ordered = [...callerPlaces, ...known].sort((a, b) =>
    kind === "transport" ?
      Number(b.role === "from") - Number(a.role === "from") :
      kind === "delivery" ?
      Number(b.role === "to") - Number(a.role === "to") :
      0
  )
  const placeZone = ordered.map(zoneOf).find((z) => z !== undefined)
  let zone: string | undefined = answeredZone?._tag === "Zone" ?
    answeredZone.zone :
    callerZone ?? named[0] ?? placeZone?.zone
  const zoneConflict = answeredZone === undefined &&
    (named.length > 1 || (callerZone !== undefined && named.some((z) => !sameZone(z, callerZone))))
  if (zoneConflict) zone = undefined
  const countries = [...ordered.flatMap((p) => zoneOf(p)?.country ?? []), ...zoneCountry(zone)].filter((c) => c !== "")

  // ---- what each text says, read on the place's clock
  const nowLocal = Temporal.Instant.fromEpochMilliseconds(DateTime.toEpochMillis(input.createdAt))
    .toZonedDateTimeISO(zone ?? "UTC").toPlainDateTime()
  const own = readText(request, nowLocal, kind, context)
  const read = answers.filter(([q]) => q !== questionId("objective")).map(([q, text]) => ({
    q,
    text,
    ...readText(
      q === questionId("budget") || q === questionId("budget.amount") ?
        `budget ${text}` :
        q === questionId("quantity.people") && /^\w+$/.test(text)
        ? `for ${text}`
        : text,
      nowLocal,
      kind,
      context
    )
  }))

  const table = kind === "reservation" &&
    /\b(?:table|restaurant|dinner|lunch|brunch|breakfast|resturant)\b/i.test(request)
  const counts = decideCounts(own.counts, read, table, caller, result)
  const whens: ReadonlyArray<When> = read.reduce((current, a) => merge(current, a.whens), own.whens)
  const times = decideTimes(whens, {
    kind,
    zone,
    zoneConflict,
    zones: [...(callerZone === undefined ? [] : [callerZone]), ...named],
    returnTrip: isReturnTrip(context),
    caller,
    answered: read.some((a) => a.whens.length > 0),
    noDate: read.some((a) =>
      a.q === questionId("date") && /^(?:no|none|any ?time|whenever|flexible|not needed|doesn't matter)\b/i.test(a.text)
    )
  }, result)
  const perUnit = (unit: string) =>
    /^(?:person|head|guest|adult|seat)$/.test(unit) ?
      counts.get("people") :
      unit === "night" ?
      counts.get("nights") ?? times.nights :
      [...counts.entries()].find(([u]) => u.includes(unit))?.[1] ??
        (unit === "item" && counts.size === 1 ? [...counts.values()][0] : undefined)
  readBudget(own.money, read, countries, callerOf("budget").map((c) => c.max), perUnit, result)
  if (times.used && zone !== undefined && zone !== "UTC" && (callerZone === undefined || !sameZone(zone, callerZone))) {
    result.constraints.push({ type: "timezone", zone })
  }
  result.needs(kind, request, known, places, callerPlaces, caller)
  if (times.needsZone && !result.asks("location")) {
    result.ask(
      "timezone",
      "Which time zone are the times in? Please name the city, or the zone (for example Europe/Lisbon)."
    )
  }
  return result.interpretation(objective)
}

const sameZone = (a: string, b: string) =>
  new Intl.DateTimeFormat("en", { timeZone: a }).resolvedOptions().timeZone ===
    new Intl.DateTimeFormat("en", { timeZone: b }).resolvedOptions().timeZone

/** An answer's times replace the request's, except that a day alone keeps the time said, and a time alone the day. */
const merge = (current: ReadonlyArray<When>, answer: ReadonlyArray<When>): ReadonlyArray<When> => {
  if (answer.length === 0) return current
  const [only] = current
  const [given] = answer
  if (current.length !== 1 || answer.length !== 1 || only === undefined || given === undefined) return answer
  if (given.part === "day" && only.part !== "day" && !given.deadline) {
    const from = given.from.with({ hour: only.from.hour, minute: only.from.minute })
    const { problem: _, ...rest } = only
    return [{ ...rest, from, to: from.add(only.to.since(only.from)), part: "both" }]
  }
  const dayKnown = only.part === "day" && only.problem === undefined ||
    only.part === "both" && only.problem === "meridiem"
  if (given.part === "time" && dayKnown && given.problem !== "meridiem") {
    const from = only.from.with({ hour: given.from.hour, minute: given.from.minute })
    const { problem: _, ...rest } = given
    return [{ ...rest, from, to: from.add(given.to.since(given.from)), part: "both" }]
  }
  return answer
}
