import { cityMapping } from "city-timezones"
import { Temporal } from "temporal-polyfill"
import { isTimeZoneName } from "../../schema/Constraint.ts"
import lexicon from "./Lexicon.json" with { type: "json" }
import { fold, matches } from "./Words.ts"

export interface Place {
  /** As the location constraint says it: "Lisbon", "to Berlin", "near Shibuya station". */
  readonly text: string
  readonly role: "at" | "from" | "to"
  /** A place only the person knows ("my sister's", "our regular spot"). */
  readonly vague: boolean
  /** Where in the text read it was named. */
  readonly span: readonly [number, number]
}

type City = (typeof cityMapping)[number]
export type Found =
  | { readonly _tag: "Zone"; readonly zone: string; readonly country: string }
  | { readonly _tag: "Ambiguous"; readonly name: string; readonly options: ReadonlyArray<string> }

const aliases: Record<string, string> = lexicon.placeAliases
const index = (keys: (c: City) => ReadonlyArray<string | undefined>): Map<string, Array<City>> => {
  const pairs = cityMapping.flatMap((c) => [...new Set(keys(c).map((k) => fold(k ?? "")))].map((k) => [k, c] as const))
  return new Map([...Map.groupBy(pairs, ([k]) => k)].map(([k, found]) => [k, found.map(([, c]) => c)]))
}
let gazetteer: { cities: Map<string, Array<City>>; regions: Map<string, Array<City>> } | undefined
const getGazetteer = () =>
  gazetteer ??= { cities: index((c) => [c.city, c.city_ascii]), regions: index((c) => [c.province, c.country, c.iso3]) }

const clocks = new Map<string, string>()
/** Zones that keep the same clock all year are one answer ("America/Vancouver" and "America/Los_Angeles"). */
const clockOf = (zone: string): string => {
  const at = (t: string) => Temporal.Instant.from(t).toZonedDateTimeISO(zone).offset
  if (!clocks.has(zone)) clocks.set(zone, `${at("2026-01-15T12:00:00Z")}/${at("2026-07-15T12:00:00Z")}`)
  return clocks.get(zone)!
}

const zoneFound = (zone: string, country = ""): Found => ({ _tag: "Zone", zone, country })
const label = (c: City) => [c.city, c.province || c.country].filter((s) => s !== "").join(", ")
/**
 * The zone of a set of candidates: one clock, or one candidate that dwarfs every other (London, England
 * over London, Ontario), or, when one country's regions share the name (Portland, Springfield), none.
 */
const decide = (name: string, candidates: ReadonlyArray<City>, sameCountry: number, otherCountry: number): Found => {
  const sorted = [...candidates].sort((a, b) => b.pop - a.pop)
  const top = sorted[0]!
  const rival = sorted.find((c) => clockOf(c.timezone) !== clockOf(top.timezone))
  const dwarfs = rival === undefined ||
    top.pop >= (rival.iso2 === top.iso2 ? sameCountry : otherCountry) * Math.max(rival.pop, 1)
  return dwarfs ? zoneFound(top.timezone, top.iso2) : { _tag: "Ambiguous", name, options: [top, rival].map(label) }
}

/** Where a place is, by the gazetteer: "Lisbon", "Portland, Maine", "Rua Augusta 10, Lisbon", "Portugal". */
export const findPlace = (text: string, context = ""): Found | undefined => {
  const { cities, regions } = getGazetteer()
  const bare = text.replace(/^(?:from|to|near|around|towards|the)\s+/i, "")
  const parts = bare.split(/\s*,\s*/)
  // "Portland, OR" after a comma; "Maine" or "Oregon" anywhere in the request or its answers.
  const qualifiers = new Set(
    [...parts.slice(1), ...matches(context, /\p{Lu}\p{Ll}[\p{L}.-]+(?: \p{Lu}\p{Ll}[\p{L}.-]+)?/gu).map((m) => m[0])]
      .flatMap((q) => [fold(q), fold(aliases[fold(q)] ?? q)])
  )
  const codes = new Set(parts.slice(1).map(fold))
  for (const part of [...parts].reverse()) {
    const words = part.split(" ")
    for (let length = words.length; length >= 1; length--) {
      for (let start = 0; start + length <= words.length; start++) {
        const said = words.slice(start, start + length).join(" ")
        const found = cities.get(aliases[fold(said)] ?? fold(said))
        if (found === undefined || (length < words.length && found.every((c) => c.pop < 100_000))) continue
        const qualified = found.filter((c) =>
          [c.province, c.country].some((r) => qualifiers.has(fold(r ?? ""))) ||
          [c.iso3, c.iso2, c.state_ansi].some((r) => codes.has(fold(r ?? "")))
        )
        return decide(said, qualified.length > 0 ? qualified : found, 20, 5)
      }
    }
  }
  const region = regions.get(aliases[fold(bare)] ?? fold(bare))
  return region === undefined ? undefined : decide(bare, region, 10, 10)
}

const abbreviations: Record<string, string> = lexicon.zoneAbbreviations
/** Zones the words name outright: "Asia/Tokyo", "Tokyo time", "9am EST", "UTC+2". */
export const namedZonesAt = (
  text: string
): Array<{ readonly zone: string; readonly span: readonly [number, number] }> =>
  matches(
    text,
    /\b([A-Z][\w/+-]+\/[\w/+-]+)|\b(\p{Lu}[\p{L} ]*?) time\b|\b(?:UTC|GMT)\s*([+-]\d{1,2})\b|\b([A-Z]{2,4})\b/gu
  )
    .flatMap((m) => {
      const [, iana, city, offset, short] = m
      const found = city === undefined ? undefined : findPlace(city.split(" ").slice(-2).join(" "))
      const zone = iana !== undefined ? (isTimeZoneName(iana) ? iana : undefined) : found?._tag === "Zone" ?
        found.zone :
        offset !== undefined
        ? `Etc/GMT${+offset > 0 ? "-" : "+"}${Math.abs(+offset)}`
        : abbreviations[short ?? ""]
      return zone === undefined ? [] : [{ zone, span: [m.index, m.index + m[0].length] as const }]
    })

export const namedZones = (text: string): Array<string> => namedZonesAt(text).map((z) => z.zone)

export const readZoneAnswer = (answer: string): Found | undefined => {
  const named = [...namedZones(answer), ...(isTimeZoneName(answer.trim()) ? [answer.trim()] : [])]
  if (named.length > 0) return zoneFound(named[0]!)
  const places = [answer.replace(/^(?:in|it's|it is)\s+/i, ""), ...readPlaces(answer).map((p) => p.text)]
  return places.map((p) => findPlace(p, answer)).find((f) => f !== undefined)
}

const cap = String
  .raw`(?:\d+[A-Za-z]?\s+)?\p{Lu}[\p{L}'.-]*(?:\s+(?:\p{Lu}[\p{L}'.-]*|\d+[A-Za-z]?(?=\s*,|\s+\p{Lu}|$)|(?:de|do|da|dos|das|del|della|di|du|la|le|les|am|der|von|upon|sur|y|el|al|of|&)(?=\s+\p{Lu})))*(?:\s+(?:station|airport|street|road|avenue|square|park|beach|market|terminal|harbou?r|hospital|university|bridge|mall))?`
const placePattern = new RegExp(
  String
    .raw`\b(in|at|near|around|to|from|towards|into|outside|by)\s+(${cap}(?:\s*,\s*${cap})*|the (?:airport|station|train station|city cent(?:re|er)|beach|port|harbou?r|hospital|old town))`,
  "gu"
)
const vaguePattern =
  /\b(?:in|at|near|to|from|by|around)\s+((?:my|our|your|his|her|their)\s+(?:[a-z]+'s(?:\s+(?:place|house|flat))?|(?:usual|regular|favou?rite|normal|old)\s+[a-z]+|place|house|flat|apartment|office|spot|hotel|work)|the\s+(?:usual|regular|same)\s+[a-z]+|\p{Lu}[a-z]+'s\s+(?:place|house|flat))(?=[\s,.!?]|$)/gu
const notPlace =
  /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|January|February|March|April|May|June|July|August|September|October|November|December|Christmas|Easter|Noon|Midnight|I|UTC|GMT|[A-Z]{2,4}|Mon|Tue|Wed|Thu|Fri|Sat|Sun|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)$/

/** The places a text names, after a word that introduces one; a text written all in lower case is read too. */
export const readPlaces = (input: string): Array<Place> => {
  const text = /\p{Ll}/u.test(input) ? input : input.toLowerCase()
  const lowerOnly = !/\p{Lu}/u.test(text.slice(1))
  const known = (n: string) => (getGazetteer().cities.get(aliases[n] ?? n) ?? []).length > 0
  const source = !lowerOnly ? text : text.replace(/\b(?:in|at|to|from|near)\s+([a-z]+)(?: ([a-z]+))?/g, (all, a, b) => {
    const hit = [`${a} ${b}`, a].find(known)
    return hit === undefined ? all : all.replace(hit, hit.replace(/\b\p{L}/gu, (c: string) => c.toUpperCase()))
  })
  // "my usual place in Paris", "my office at 5 Main Street": the place that follows says where.
  const vague = matches(source, vaguePattern).filter((m) => {
    const after = source.slice(m.index + m[0].length, m.index + m[0].length + 40)
    const next = /^\s+(?:in|at)\s+(?:\d+\s+)?(\p{Lu}[\p{L}\d]*)/u.exec(after)?.[1]
    return next === undefined || notPlace.test(next)
  })
  const places: Array<Place> = vague.map((m) => ({
    text: m[1]!,
    role: "at",
    vague: true,
    span: [m.index + m[0].length - m[1]!.length, m.index + m[0].length]
  }))
  for (const m of matches(source, placePattern)) {
    const [, prep = "", name = ""] = m
    const inVague = vague.some((v) => m.index >= v.index && m.index < v.index + v[0].length)
    const first = /\p{Lu}[\p{L}'.-]*/u.exec(name)?.[0] ?? ""
    if (
      inVague || (notPlace.test(first) && aliases[fold(first)] === undefined) || (prep === "by" && !/^the /.test(name))
    ) continue
    const cleaned = name.replace(/[\s,.]+$/, "").replace(/\s+(?:on|of|&)$/, "")
    const role = ({ from: "from", to: "to", into: "to", towards: "to" } as const)[prep as "to"] ?? "at"
    const at = m.index + m[0].indexOf(name, prep.length)
    places.push({
      text: /^(?:near|around|to|from|towards)$/.test(prep) ? `${prep} ${cleaned}` : cleaned,
      role,
      vague: false,
      span: [/^(?:near|around|to|from|towards)$/.test(prep) ? m.index : at, at + cleaned.length]
    })
  }
  // A large city needs no "in": "Lisbon, Friday at 8", "a Tokyo hotel".
  for (const m of matches(source, /\b\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)?\b/gu)) {
    const big = (getGazetteer().cities.get(fold(m[0])) ?? []).some((c) => c.pop >= 1_000_000)
    const person = /\b(?:with|and|for|dear|to|from|by|at|in|near)\s+$/i.test(
      source.slice(Math.max(0, m.index - 6), m.index)
    )
    if (big && !person && !places.some((p) => p.text.includes(m[0]))) {
      places.push({ text: m[0], role: "at", vague: false, span: [m.index, m.index + m[0].length] })
    }
  }
  return places
}
