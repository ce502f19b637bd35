import * as DateTime from "effect/DateTime"
import { Temporal } from "temporal-polyfill"
import type { ConstraintInput, Evidence, Objective, ObjectiveKind } from "../../schema/Constraint.ts"
import { questionId, summaryMaxLength } from "../../schema/Constraint.ts"
import type { Place } from "../text/Places.ts"
import { findPlace, namedZonesAt, onlyARegion, zoneOfCountry } from "../text/Places.ts"
import { dedupe, mask } from "../text/Words.ts"
import type { Amount } from "./Budget.ts"
import { readBudget } from "./Budget.ts"
import { readDates } from "./Dates.ts"
import type { Interpretation, InterpretInput } from "./Interpretation.ts"
import { readKindAt } from "./Kinds.ts"
import lexicon from "./Lexicon.json" with { type: "json" }
import { clock24, dayFirst } from "./Locale.ts"
import { mentionsIn, questionFor } from "./Mentions.ts"
import { Findings } from "./Missing.ts"
import { join } from "./Moments.ts"
import { homeOf, readMoney, resolveCurrency } from "./Money.ts"
import type { Fact } from "./Needs.ts"
import { askMissing, hedge, isGeneric, needed, pluralItem, shapeOf } from "./Needs.ts"
import { readPlaces, readZoneAnswer } from "./PlaceWords.ts"
import type { CountRead } from "./Quantities.ts"
import { decideCounts, readCounts } from "./Quantities.ts"
import type { Source, Words } from "./Text.ts"
import { codePoints, normalized, Traced, wordsOf } from "./Text.ts"
import { decideTimes } from "./Times.ts"
import type { Conventions, When } from "./When.ts"

/** A place as read, with its words. */
type Named = Place & { readonly words: ReadonlyArray<Words> }

/** The times, amounts and counts of one text: the request's, or an answer's (read knowing what it answers). */
const readText = (
  q: string,
  traced: Traced,
  now: Temporal.PlainDateTime,
  kind: ObjectiveKind,
  context: string,
  place: Conventions,
  countries: ReadonlyArray<string>
) => {
  const lead = q === "q_budget" || q === "q_budget_amount" ? "budget " : q === "q_quantity_people" ? "for " : ""
  const dates = readDates(Traced.concat([Traced.added(lead), traced]), now, kind, context, place)
  const rewritten = dates.traced
  // A time read is blanked out with a mark, not spaces: "from Friday, €120 a night" is no "from €120".
  const rest = mask(dates.text, dates.whens.map((w) => w.span), "·")
  const money: Array<Amount> = readMoney(rest, countries).map((m) => ({ ...m, words: [wordsOf(rewritten, ...m.span)] }))
  const counts: Array<CountRead> = readCounts(mask(rest, money.map((m) => m.span)))
    .map((c) => ({ ...c, words: [wordsOf(rewritten, ...c.span)] }))
  return { q, text: traced.text, words: wordsOf(traced, 0, traced.text.length), whens: dates.whens, money, counts }
}

const regionNames = new Intl.DisplayNames("en", { type: "region" })

/** Texting shorthand spelled out ("frm", "tix", "b4"), so every reader reads it. */
const texting: Record<string, string> = lexicon.texting
const shorthand = new RegExp(
  `(?<![\\p{L}\\d'])(?:${Object.keys(texting).map((w) => w.replace(/[/]/g, "\\/")).join("|")})(?![\\p{L}\\d'])`,
  "giu"
)
const plain = (traced: Traced) => traced.replace(shorthand, (w) => texting[w.toLowerCase()] ?? w)

/** The mentions of the request that no evidence covers (spans compared in code points). */
const unread = (request: string, evidence: ReadonlyArray<Evidence>) => {
  const own = evidence.filter((e) => e.revision === undefined)
  const source = { text: request }
  const points = (units: number) => codePoints(source, units)
  return mentionsIn(request).filter((m) => {
    const [start, end] = [points(m.span[0]), points(m.span[1])]
    return !own.some((e) => e.start < end && start < e.end)
  })
}

const sameZone = (a: string, b: string) => {
  const canonical = (zone: string) => new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone
  return canonical(a) === canonical(b)
}

const objectiveOf = (request: Traced, result: Findings): Objective | null => {
  const text = request.text
  const { kind, span } = readKindAt(text)
  if (!/\p{L}{2,}/u.test(text) || (kind === "other" && text.split(" ").length <= 2)) return null
  const cut = Array.from(text).slice(0, summaryMaxLength - 1).join("")
  const summary = cut.length === text.length ? text : `${cut.replace(/\s+\S{0,99}$/, "")}…`
  // `other` is what the whole request asks for.
  const [first, ...rest] = result.evidence([wordsOf(request, ...(span ?? [0, text.length]))])
  return first === undefined ? { kind, summary } : { kind, summary, evidence: [first, ...rest] }
}

/** What the request says, with the answers given so far applied; pure and deterministic. */
export const interpretRequest = (input: InterpretInput): Interpretation => {
  const latest = [...new Map(input.answers.map((a) => [a.questionId, a])).values()]
  const sources: ReadonlyArray<Source> = [
    { text: input.request },
    ...latest.map((a) => ({ text: a.answer, answer: { revision: a.revision, questionId: a.questionId } }))
  ]
  const texts = latest.map((a, i) => ({ q: a.questionId, traced: plain(normalized(a.answer, i + 1)) }))
  const result = new Findings(new Map(texts.map((a) => [a.q, a.traced.text])), sources)
  const goal = texts.find((a) => a.q === "q_objective" && a.traced.text !== "")?.traced
  const request = plain(
    goal === undefined ?
      normalized(input.request, 0) :
      Traced.concat([normalized(input.request, 0), Traced.added(". "), goal]).replace(/^\. /, "")
  )
  const answers = texts.filter((a) => a.traced.text !== "" && a.q !== "q_objective")
  const context = [request, ...answers.map((a) => a.traced)].join(". ")
  const caller = input.constraints
  const of = <T extends ConstraintInput["type"]>(type: T) =>
    caller.filter((c): c is Extract<ConstraintInput, { type: T }> => c.type === type)

  const objective = objectiveOf(request, result)
  const kind = objective?.kind ?? "other"
  if (objective === null) result.ask("objective", "What would you like done?")

  // Places: the request's and the answers'; an answer to "where?" is a place even without "in".
  const placesIn = (traced: Traced): Array<Named> =>
    readPlaces(traced.text).map((p) => ({ ...p, words: [wordsOf(traced, ...p.span)] }))
  // A place answered to "where from?" is where it starts, to "where to?" where it goes.
  const asked = (q: string) => answers.some((a) => a.q === q)
  const roleOf = (q: string): Place["role"] => (q === "q_location_from" ? "from" : q === "q_location_to" ? "to" : "at")
  const answered = answers.flatMap(({ q, traced }): Array<Named> => {
    const where = q.startsWith("q_location")
    const read = placesIn(traced).map((p) => (where && p.role === "at" ? { ...p, role: roleOf(q) } : p))
    if (read.length > 0 || !where) return read
    const text = traced.text.replace(/[.!]+$/, "")
    return [{ text, role: roleOf(q), vague: false, span: [0, text.length], words: [wordsOf(traced, 0, text.length)] }]
  })
  const own = placesIn(request).filter((p) => !(p.vague && (asked("q_location") || asked("q_location_to"))))
  // A place named twice is one place, shown by both mentions.
  const places = dedupe([...own, ...answered], (p) => p.text).map((p) => ({
    ...p,
    words: [...own, ...answered].filter((q) => q.text === p.text).flatMap((q) => q.words)
  }))
  const callerPlaces = of("location").map((c): Named => ({
    text: c.place,
    role: "at",
    vague: false,
    span: [0, 0],
    words: []
  }))
  const known = [...callerPlaces, ...places.filter((p) => !p.vague)]
  // A currency that is one country's names that country: "Santiago" with "450.000 CLP" is in Chile.
  const hinted = readMoney(request.text).flatMap((m) => {
    const country = m.currency !== undefined && "code" in m.currency ? homeOf(m.currency.code) : undefined
    return country === undefined ? [] : [regionNames.of(country) ?? ""]
  })
  const found = known.map((p) => ({ ...p, found: findPlace(p.text, [context, ...hinted].join(". ")) }))
  // A town several places share is asked about, unless the other places named are in another country
  // than any of them ("Victoria Island" beside "Ikoyi, Lagos" is no Victoria of Canada or Texas).
  const elsewhere = found.flatMap((p) => (p.found?._tag === "Zone" ? [p.found.country] : []))
  const ambiguous = found.find((p) =>
    p.found?._tag === "Ambiguous" && !callerPlaces.some((c) => c.text === p.text) &&
    (elsewhere.length === 0 || elsewhere.some((c) => p.found?._tag === "Ambiguous" && p.found.countries.includes(c)))
  )?.found
  if (ambiguous?._tag === "Ambiguous") {
    result.ask("location", `Which ${ambiguous.name} do you mean: ${ambiguous.options.join(" or ")}?`)
  }
  if (callerPlaces.length === 0) { for (const p of known) result.add({ type: "location", place: p.text }, p.words) }

  // The zone: an answer's, else the caller's, else one the words name, else a journey's origin, a
  // delivery's destination, or the first place named.
  const first = kind === "transport" ? "from" : kind === "delivery" ? "to" : "at"
  const zones = [...found].sort((a, b) => Number(b.role === first) - Number(a.role === first))
    .flatMap((p) => (p.found?._tag === "Zone" ? [{ ...p.found, words: p.words }] : []))
  const zoneAnswer = answers.find((a) => a.q === "q_timezone")
  const answeredZone = zoneAnswer === undefined ? undefined : readZoneAnswer(zoneAnswer.traced.text)
  const callerZone = of("timezone")[0]?.zone
  const named = dedupe(
    [request, ...answers.map((a) => a.traced)].flatMap((traced) =>
      namedZonesAt(traced.text).map((z) => ({ zone: z.zone, words: [wordsOf(traced, ...z.span)] }))
    ),
    (z) => z.zone
  )
  const conflict = answeredZone === undefined &&
    (named.length > 1 || (callerZone !== undefined && named.some((z) => !sameZone(z.zone, callerZone))))
  const chosen = conflict ? undefined : answeredZone?._tag === "Zone" && zoneAnswer !== undefined ?
    { zone: answeredZone.zone, words: [wordsOf(zoneAnswer.traced, 0, zoneAnswer.traced.text.length)] } :
    callerZone !== undefined ?
    { zone: callerZone, words: [] } :
    named[0] ?? zones[0]
  // A currency that is one country's says where, when nothing else does: "9,000 yen", "700 Kč", "50 bucks".
  const placeCountries = zones.map((z) => z.country)
  const spent = readMoney(request.text, placeCountries).flatMap((m) => {
    const code = m.currency === undefined ? undefined : resolveCurrency(m.currency, placeCountries)
    const country = typeof code === "string" ? homeOf(code) : undefined
    return country === undefined ? [] : [{ country, words: [wordsOf(request, ...m.span)] }]
  })[0]
  const home = spent === undefined ? undefined : zoneOfCountry(spent.country)
  const fallback = chosen ??
    (home?._tag === "Zone" && spent !== undefined ? { zone: home.zone, words: spent.words } : undefined)
  const zone = fallback?.zone
  const zoneCountry = zone === undefined ? undefined : findPlace(zone.split("/").pop()!.replaceAll("_", " "))
  const countries = [
    ...placeCountries,
    zoneCountry?._tag === "Zone" ? zoneCountry.country : "",
    placeCountries.length === 0 ? spent?.country ?? "" : ""
  ]

  // Each text read on the place's clock; an answer's facts replace the request's.
  const now = Temporal.Instant.fromEpochMilliseconds(DateTime.toEpochMillis(input.createdAt))
    .toZonedDateTimeISO(zone ?? "UTC").toPlainDateTime()
  const located = countries.filter((c) => c !== "")
  const conventions = { dayFirst: dayFirst(located), clock24: clock24(located) }
  // The words of a place are not read again as a time, an amount or a count ("Füredi út 10, Thursday 8:00").
  const unplaced = (traced: Traced, list: ReadonlyArray<Named>) =>
    traced.blank(list.filter((p) => !p.vague && p.words.some((w) => w.in === traced)).map((p) => p.span))
  const mine = readText("", unplaced(request, own), now, kind, context, conventions, located)
  const read = answers.map((a) => readText(a.q, unplaced(a.traced, answered), now, kind, context, conventions, located))
  const shape = shapeOf(kind, request.text)
  const plural = pluralItem(request.text)
  const counts = decideCounts(mine.counts, read, caller, result, plural ?? "tickets")
  const hedged = [request, ...answers.map((a) => a.traced)].map((t) => hedge(t.text)?.[0]).find((h) => h !== undefined)
  const times = decideTimes(read.reduce<ReadonlyArray<When>>((whens, a) => merge(now)(whens, a.whens), mine.whens), {
    kind,
    shape,
    nights: counts.get("nights") ?? counts.get("night"),
    hedge: asked("q_date") ? undefined : hedged,
    zone,
    zoneConflict: conflict,
    zones: [...(callerZone === undefined ? [] : [callerZone]), ...named.map((z) => z.zone)],
    caller,
    answered: read.some((a) => a.whens.length > 0),
    noDate: read.some((a) => a.q === "q_date" && /^(?:no|none|any ?time|whenever|flexible)\b/i.test(a.text))
  }, result)
  const perUnit = (unit: string) =>
    /^(?:person|head|guest|adult|seat)$/.test(unit) ? counts.get("people") : unit === "night" ?
      counts.get("nights") ?? (times.nights === undefined ? undefined : { count: times.nights, words: times.words }) :
      [...counts].find(([u]) => u.includes(unit))?.[1] ??
        (unit === "item" && counts.size === 1 ? [...counts.values()][0] : undefined)
  const placeWords = zones.length > 0 ? zones[0]!.words : fallback?.words ?? []
  const budgets = of("budget").map((c) => c.max)
  readBudget(mine.money, read, countries.filter((c) => c !== ""), placeWords, budgets, perUnit, result)
  if (times.used && zone !== undefined && zone !== "UTC" && (callerZone === undefined || !sameZone(zone, callerZone))) {
    result.add({ type: "timezone", zone }, fallback?.words ?? [])
  }
  result.vagueness(kind, request.text, places, caller)
  // What the objective needs and the words do not give (Needs.json), asked once each.
  const given = callerPlaces.length > 0
  // A place already asked about ("where exactly is home?") is not asked for again, in the role it has.
  const vague = places.filter((p) => p.vague).map((p) => p.role)
  const placed = (role: Place["role"] | "any", address = false) =>
    (result.asks("location") && (role === "any" || vague.includes(role) || (role === "at" && vague.includes("to")))) ||
    places.some((p) => !p.vague && (role === "any" || p.role === role) && (!address || !onlyARegion(p.text)))
  const item = /\b(?:order|buy|get|purchase|send)\s+(?:me\s+|us\s+|some\s+)?([\p{L}-]+)/iu.exec(request.text)?.[1]
  const have: Record<Fact, boolean> = {
    place: given || placed("any"),
    // "a cab in London to Gatwick": where the journey is, when it also says where to, is where it starts.
    origin: given || placed("from") || (placed("to") && placed("at")),
    destination: placed("to"),
    pickup: given || placed("from"),
    address: given || placed("to", true) || placed("at", true),
    day: times.day,
    time: times.time,
    until: times.until || counts.has("nights") || counts.has("night") ||
      /\b(?:(?:for )?tonight|one night|for a night|night of|overnight)\b/i.test(request.text),
    party: counts.has("people"),
    count: [...counts.keys()].some((u) =>
      /^(?:people|.*\b(?:tickets?|seats?|passes)\b.*)$/.test(u) || u.includes(plural ?? "\u0000")
    ),
    item: item === undefined || !isGeneric(item)
  }
  const why: Partial<Record<Fact, string>> = {
    ...(times.vague === undefined ? {} : { day: `${times.vague} is not one day.` }),
    ...(times.said === undefined || times.time ? {} : { time: `${times.said} names no time.` }),
    ...(item === undefined ? {} : { item: `"${item}" does not say what.` }),
    count: `The request does not say how many ${plural ?? "tickets"}.`
  }
  // Once a time is asked about, the day, the time and the end are left to that question.
  const want = needed(shape, request.text)
  if (!result.asks("date") && !result.asks("time")) askMissing(want, (f) => have[f], result, why)
  else askMissing(want.filter((f) => f !== "day" && f !== "time" && f !== "until"), (f) => have[f], result)
  if (times.needsZone && !result.asks("location")) result.ask("timezone", "Which time zone? Name the city or the zone.")
  // Nothing dropped: a time, a date, an amount, a count or a place that no reader took asks, in its words.
  const heard = result.evidence([
    ...mine.whens.flatMap((w) => w.words),
    ...mine.money.flatMap((m) => m.words),
    ...mine.counts.flatMap((c) => c.words),
    ...places.flatMap((p) => p.words),
    ...named.flatMap((z) => z.words)
  ])
  for (const m of unread(input.request, [...heard, ...result.constraints.flatMap((c) => c.evidence)])) {
    // An answer to that question has replaced what the request said.
    if (!asked(questionId(questionFor[m.kind]))) result.mention(questionFor[m.kind], m.text)
  }
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
