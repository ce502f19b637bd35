import { cityMapping } from "city-timezones"
import { Temporal } from "temporal-polyfill"
import { isTimeZoneName } from "../../schema/Constraint.ts"
import places from "./Places.json" with { type: "json" }
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
  | {
    readonly _tag: "Ambiguous"
    readonly name: string
    readonly options: ReadonlyArray<string>
    readonly countries: ReadonlyArray<string>
  }

export const aliases: Record<string, string> = places.aliases
/** The words that end a terminal's name ("Terminal 5", "Gare du Nord station"), as a pattern's alternatives. */
export const terminalWords: string = places.terminalWords

const terminal = new RegExp(`\\s+(?:${terminalWords})$`, "i")
/** "Keflavík airport", "Amsterdam Centraal": a name that ends in a terminal's or a landmark's word. */
export const isTerminal = (name: string): boolean => terminal.test(name)
/** "Victoria Island", "Sydney Road": a word after which a town's name is no town. */
const street = /^(?:island|street|st|road|rd|avenue|ave|heights|hills|lane|drive|boulevard|blvd)$/i
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

export const zoneFound = (zone: string, country = ""): Found => ({ _tag: "Zone", zone, country })
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
  return dwarfs ? zoneFound(top.timezone, top.iso2) : {
    _tag: "Ambiguous",
    name,
    options: [top, rival].map(label),
    countries: [top.iso2, rival.iso2]
  }
}

/** Whether the words name only a town, a region or a country ("Chennai", "Leeds, UK"): no street, no venue. */
export const onlyARegion = (text: string): boolean => {
  const { cities, regions } = getGazetteer()
  const bare = text.replace(/^(?:from|to|near|around|towards|in|the)\s+/i, "")
  return bare.split(/\s*,\s*/).every((part) => {
    const key = aliases[fold(part)] ?? fold(part)
    return cities.has(key) || regions.has(key)
  })
}

/** Where a place is, by the gazetteer: "Lisbon", "Portland, Maine", "Rua Augusta 10, Lisbon", "Portugal". */
export const findPlace = (text: string, context = ""): Found | undefined => {
  const { cities, regions } = getGazetteer()
  // "Keflavík airport", "Amsterdam Centraal": the town a terminal is named for.
  const bare = text.replace(/^(?:from|to|near|around|towards|the)\s+/i, "").replace(terminal, "")
  const parts = bare.split(/\s*,\s*/)
  // "Portland, OR" after a comma; "Maine" or "Oregon" anywhere in the request or its answers.
  const qualifiers = new Set(
    [...parts.slice(1), ...matches(context, /\p{Lu}\p{Ll}[\p{L}.-]+(?: \p{Lu}\p{Ll}[\p{L}.-]+)?/gu).map((m) => m[0])]
      .flatMap((q) => [fold(q), fold(aliases[fold(q)] ?? q)])
  )
  const codes = new Set(parts.slice(1).map(fold))
  for (const part of [...parts].reverse()) {
    // "Hanoi's Old Quarter" is in Hanoi.
    const words = part.split(" ").map((w) => w.replace(/['’]s$/, ""))
    // A town's name has at most five words.
    for (let length = Math.min(words.length, 5); length >= 1; length--) {
      for (let start = 0; start + length <= words.length; start++) {
        const said = words.slice(start, start + length).join(" ")
        // A short alias ("LA", "SF") is a whole name, never a word inside another ("La Siesta").
        const alias = length < words.length && fold(said).length <= 3 ? undefined : aliases[fold(said)]
        const found = cities.get(alias ?? fold(said))
        // "Victoria Island", "Sydney Road": a town's name before a street's or a district's word is no town.
        if (street.test(words[start + length] ?? "")) continue
        if (found === undefined || (length < words.length && found.every((c) => c.pop < 100_000))) continue
        // The name looked up does not qualify itself: "Santiago" is also a province of the Dominican Republic.
        const qualified = found.filter((c) =>
          [c.province, c.country].some((r) => fold(r ?? "") !== fold(said) && qualifiers.has(fold(r ?? ""))) ||
          [c.iso3, c.iso2, c.state_ansi].some((r) => codes.has(fold(r ?? "")))
        )
        return decide(said, qualified.length > 0 ? qualified : found, 20, 5)
      }
    }
  }
  const region = regions.get(aliases[fold(bare)] ?? fold(bare))
  if (region !== undefined) return decide(bare, region, 10, 10)
  // "Arena México", "Hilton Kuwait": a country named last says where, as a country does.
  const tail = parts.at(-1)!.split(" ")
  for (const length of [2, 1]) {
    const said = tail.slice(-length).join(" ")
    const country = tail.length > length ? regions.get(aliases[fold(said)] ?? fold(said)) : undefined
    if (country !== undefined && country.every((c) => c.country === country[0]!.country)) {
      return decide(said, country, 10, 10)
    }
  }
  return undefined
}

const abbreviations: Record<string, string> = places.zoneAbbreviations
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
        : /\d\s*(?:[ap]\.?m\.?)?\s*$/i.test(text.slice(Math.max(0, m.index - 12), m.index))
        ? abbreviations[short ?? ""]
        : undefined
      return zone === undefined ? [] : [{ zone, span: [m.index, m.index + m[0].length] as const }]
    })

export const namedZones = (text: string): Array<string> => namedZonesAt(text).map((z) => z.zone)

/** The zone of a country that keeps one clock everywhere (Japan, Sri Lanka), by its cities; none for many clocks. */
export const zoneOfCountry = (country: string): Found | undefined => {
  const cities = (getGazetteer().regions.get(fold(country)) ?? cityMapping.filter((c) => c.iso2 === country))
    .filter((c) => typeof c.timezone === "string" && c.timezone !== "")
  const clocks = new Set(cities.map((c) => clockOf(c.timezone)))
  const top = [...cities].sort((a, b) => b.pop - a.pop)[0]
  return clocks.size === 1 && top !== undefined ? zoneFound(top.timezone, top.iso2) : undefined
}

/** Whether a name is a town the gazetteer knows, of at least `population` people. */
export const isTown = (name: string, population = 0): boolean =>
  (getGazetteer().cities.get(aliases[fold(name)] ?? fold(name)) ?? []).some((c) => c.pop >= population)
