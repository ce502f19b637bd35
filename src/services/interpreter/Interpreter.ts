import { Context, DateTime, Effect, Layer, Option } from "effect"
import type { ConstraintInput, Objective, ObjectiveKind, Question, QuestionAbout } from "../../schema/Constraint.ts"
import {
  currencyCodes,
  daysFromCivil,
  daysInMonth,
  isTimeZoneName,
  placeMaxLength,
  questionId,
  summaryMaxLength,
  unitMaxLength
} from "../../schema/Constraint.ts"

export interface Answer {
  readonly questionId: string
  readonly question: string
  readonly answer: string
}

export interface InterpretInput {
  /** The User's words, verbatim (1 to 10,000 characters). */
  readonly request: string
  /** The caller's constraints. */
  readonly constraints: ReadonlyArray<ConstraintInput>
  /** Every answer given so far, oldest first. */
  readonly answers: ReadonlyArray<Answer>
  /** The Job's creation time: relative dates resolve against it. */
  readonly createdAt: DateTime.Utc
}

export interface Understood {
  readonly _tag: "Understood"
  readonly objective: Objective
  /** The interpreted constraints only, never the caller's. */
  readonly constraints: ReadonlyArray<ConstraintInput>
}

export interface NeedsInput {
  readonly _tag: "NeedsInput"
  readonly objective: Objective | null
  readonly constraints: ReadonlyArray<ConstraintInput>
  readonly questions: ReadonlyArray<Question>
}

export type Interpretation = Understood | NeedsInput

/**
 * Reads what the User wants from their words, the caller's constraints and the answers given so far.
 * It never fails: what it cannot read becomes a question.
 */
export class Interpreter extends Context.Service<Interpreter, {
  readonly interpret: (input: InterpretInput) => Effect.Effect<Interpretation>
}>()("Interpreter") {}

// ---------------------------------------------------------------------------------------------------
// Tokens. Every reader below looks at a bounded number of tokens from where it starts, so reading is
// linear in the length of the request (no regular expression runs over the whole text).

interface Token {
  readonly text: string
  readonly lower: string
  readonly kind: "word" | "num" | "sym"
  /** Whitespace precedes it: "7pm" is two tokens without a gap, "7 pm" two with one. */
  readonly gap: boolean
}

const letter = /[\p{L}\p{M}]/u
const space = /\s/u
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9"
const isLetter = (c: string | undefined) => c !== undefined && letter.test(c)

const tokenize = (s: string): Array<Token> => {
  const chars = Array.from(s)
  const tokens: Array<Token> = []
  let gap = true
  let i = 0
  while (i < chars.length) {
    const c = chars[i]!
    if (space.test(c)) {
      gap = true
      i++
      continue
    }
    let j = i + 1
    let kind: Token["kind"] = "sym"
    if (isDigit(c)) {
      kind = "num"
      while (isDigit(chars[j]) || ((chars[j] === "," || chars[j] === ".") && isDigit(chars[j + 1]))) j++
    } else if (isLetter(c)) {
      kind = "word"
      while (isLetter(chars[j]) || ((chars[j] === "'" || chars[j] === "-") && isLetter(chars[j + 1]))) j++
    }
    const text = chars.slice(i, j).join("")
    tokens.push({ text, lower: text.toLowerCase(), kind, gap })
    gap = false
    i = j
  }
  return tokens
}

const stripAccents = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "")

// ---------------------------------------------------------------------------------------------------
// Numbers, kept as decimal strings: never a float on the way to an amount.

interface Decimal {
  readonly int: string
  readonly frac: string
}

const trimZeros = (int: string) => int.replace(/^0+(?=\d)/, "")

/**
 * A number as written. "1,200" is twelve hundred and "12,50" twelve and a half (a comma before exactly
 * three digits groups thousands); "1.200" could be either and is "ambiguous".
 */
const parseNumber = (text: string): Decimal | "ambiguous" | undefined => {
  if (/^\d+$/.test(text)) return { int: trimZeros(text), frac: "" }
  const groups = text.split(/[.,]/)
  const seps = text.replace(/\d/g, "")
  const first = groups[0]!
  const last = groups[groups.length - 1]!
  if (seps.length === 1) {
    if (last.length === 3 && first.length <= 3 && first !== "0") {
      return seps === "," ? { int: trimZeros(first + last), frac: "" } : "ambiguous"
    }
    return { int: trimZeros(first), frac: last }
  }
  const decimalSep = seps[seps.length - 1]!
  const groupSeps = seps.slice(0, -1)
  const allSame = [...seps].every((c) => c === seps[0])
  if (allSame) {
    if (first.length > 3 || groups.slice(1).some((g) => g.length !== 3)) return undefined
    return { int: trimZeros(groups.join("")), frac: "" }
  }
  if ([...groupSeps].some((c) => c === decimalSep) || first.length > 3) return undefined
  if (groups.slice(1, -1).some((g) => g.length !== 3)) return undefined
  return { int: trimZeros(groups.slice(0, -1).join("")), frac: last }
}

const timesThousand = (d: Decimal, zeros: number): Decimal => {
  const digits = d.int + d.frac.padEnd(zeros, "0")
  const point = d.int.length + zeros
  return { int: trimZeros(digits.slice(0, point)), frac: digits.slice(point) }
}

const numberWords: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
  dozen: 12
}

const wordNumber = (lower: string): number | undefined => {
  const direct = numberWords[lower]
  if (direct !== undefined || !lower.includes("-")) return direct
  const [tens, units] = lower.split("-")
  const t = tens === undefined ? undefined : numberWords[tens]
  const u = units === undefined ? undefined : numberWords[units]
  return t !== undefined && u !== undefined && t >= 20 && t <= 90 && t % 10 === 0 && u < 10 ? t + u : undefined
}

// ---------------------------------------------------------------------------------------------------
// Money.

const minorUnits = (currency: string): number =>
  "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF".includes(currency)
    ? 0
    : "BHD IQD JOD KWD LYD OMR TND".includes(currency)
    ? 3
    : currency === "CLF" || currency === "UYW"
    ? 4
    : 2

/** The contract's amount for a number in a currency: its minor units written out, or why it cannot be. */
const formatAmount = (d: Decimal, currency: string): string | "too-large" | "too-precise" => {
  const frac = d.frac.replace(/0+$/, "")
  if (d.int.length > 15) return "too-large"
  if (frac.length > 4) return "too-precise"
  const digits = Math.max(minorUnits(currency), frac.length)
  return digits === 0 ? d.int : `${d.int}.${frac.padEnd(digits, "0")}`
}

/**
 * A currency named by a sign or word that several currencies share. The dollar alone reads as USD unless
 * the request is set where another dollar is spent; the others need the place to say which.
 */
type Family = "dollar" | "yen" | "krone" | "rupee" | "peso" | "franc" | "dirham"

const families: Record<Family, ReadonlyArray<string>> = {
  dollar: ["USD", "CAD", "AUD", "NZD", "SGD", "HKD", "TWD", "MXN", "ARS", "CLP", "COP"],
  yen: ["JPY", "CNY"],
  krone: ["SEK", "NOK", "DKK", "ISK"],
  rupee: ["INR", "PKR", "LKR", "NPR"],
  peso: ["MXN", "ARS", "CLP", "COP", "PHP"],
  franc: ["CHF"],
  dirham: ["AED", "MAD"]
}

type CurrencyMention = { readonly code: string } | { readonly family: Family }

const currencySymbols: Record<string, CurrencyMention> = {
  "$": { family: "dollar" },
  "€": { code: "EUR" },
  "£": { code: "GBP" },
  "¥": { family: "yen" },
  "円": { code: "JPY" },
  "元": { code: "CNY" },
  "₹": { code: "INR" },
  "₩": { code: "KRW" },
  "₽": { code: "RUB" },
  "₺": { code: "TRY" },
  "₪": { code: "ILS" },
  "₫": { code: "VND" },
  "฿": { code: "THB" },
  "₱": { code: "PHP" },
  "₦": { code: "NGN" },
  "₴": { code: "UAH" },
  "₸": { code: "KZT" },
  "₡": { code: "CRC" },
  "₲": { code: "PYG" },
  "₵": { code: "GHS" },
  "₾": { code: "GEL" },
  "₼": { code: "AZN" },
  "₨": { family: "rupee" }
}

const dollarPrefixes: Record<string, string> = {
  us: "USD",
  u: "USD",
  c: "CAD",
  ca: "CAD",
  can: "CAD",
  a: "AUD",
  au: "AUD",
  nz: "NZD",
  hk: "HKD",
  s: "SGD",
  sg: "SGD",
  r: "BRL",
  mx: "MXN",
  nt: "TWD"
}

const lowerCodes = new Set(
  "usd eur gbp jpy chf cad aud nzd cny inr brl mxn sek nok dkk pln czk huf zar sgd hkd krw".split(" ")
)

const currencyWords: Record<string, CurrencyMention> = {
  dollar: { family: "dollar" },
  dollars: { family: "dollar" },
  buck: { family: "dollar" },
  bucks: { family: "dollar" },
  euro: { code: "EUR" },
  euros: { code: "EUR" },
  pound: { code: "GBP" },
  pounds: { code: "GBP" },
  quid: { code: "GBP" },
  sterling: { code: "GBP" },
  yen: { code: "JPY" },
  yuan: { code: "CNY" },
  rmb: { code: "CNY" },
  renminbi: { code: "CNY" },
  rupee: { family: "rupee" },
  rupees: { family: "rupee" },
  rs: { family: "rupee" },
  kr: { family: "krone" },
  krona: { code: "SEK" },
  kronor: { code: "SEK" },
  krone: { family: "krone" },
  kroner: { family: "krone" },
  peso: { family: "peso" },
  pesos: { family: "peso" },
  franc: { family: "franc" },
  francs: { family: "franc" },
  reais: { code: "BRL" },
  zloty: { code: "PLN" },
  "złoty": { code: "PLN" },
  "zł": { code: "PLN" },
  zlotys: { code: "PLN" },
  forint: { code: "HUF" },
  koruna: { code: "CZK" },
  "kč": { code: "CZK" },
  baht: { code: "THB" },
  lira: { code: "TRY" },
  shekel: { code: "ILS" },
  shekels: { code: "ILS" },
  rand: { code: "ZAR" },
  ringgit: { code: "MYR" },
  rupiah: { code: "IDR" },
  naira: { code: "NGN" },
  dirham: { family: "dirham" },
  dirhams: { family: "dirham" }
}

/** Adjectives that name which dollar, peso or franc. */
const currencyAdjectives: Record<string, string> = {
  us: "USD",
  american: "USD",
  canadian: "CAD",
  australian: "AUD",
  aussie: "AUD",
  "new zealand": "NZD",
  kiwi: "NZD",
  singapore: "SGD",
  singaporean: "SGD",
  "hong kong": "HKD",
  taiwan: "TWD",
  taiwanese: "TWD",
  mexican: "MXN",
  argentine: "ARS",
  argentinian: "ARS",
  chilean: "CLP",
  colombian: "COP",
  philippine: "PHP",
  swiss: "CHF",
  indian: "INR",
  pakistani: "PKR",
  swedish: "SEK",
  norwegian: "NOK",
  danish: "DKK",
  icelandic: "ISK",
  japanese: "JPY",
  chinese: "CNY",
  emirati: "AED",
  moroccan: "MAD"
}

// ---------------------------------------------------------------------------------------------------
// Places: what the runtime's time zone database knows (its exemplar cities), a few more cities, and the
// countries whose money or clocks the readers need.

/** Zones whose exemplar name is a common word or not a place anyone books in. */
const unusableZones = /^(?:Antarctica|Etc|Arctic)\/|Christmas|Easter|Wake|Midway|Truk|Chuuk|Faroe|Johnston$/

const cityAliases: Record<string, string> = {
  "porto": "Europe/Lisbon",
  "faro": "Europe/Lisbon",
  "coimbra": "Europe/Lisbon",
  "barcelona": "Europe/Madrid",
  "seville": "Europe/Madrid",
  "sevilla": "Europe/Madrid",
  "valencia": "Europe/Madrid",
  "malaga": "Europe/Madrid",
  "milan": "Europe/Rome",
  "florence": "Europe/Rome",
  "venice": "Europe/Rome",
  "naples": "Europe/Rome",
  "munich": "Europe/Berlin",
  "münchen": "Europe/Berlin",
  "hamburg": "Europe/Berlin",
  "frankfurt": "Europe/Berlin",
  "cologne": "Europe/Berlin",
  "köln": "Europe/Berlin",
  "lyon": "Europe/Paris",
  "marseille": "Europe/Paris",
  "nice": "Europe/Paris",
  "bordeaux": "Europe/Paris",
  "edinburgh": "Europe/London",
  "manchester": "Europe/London",
  "glasgow": "Europe/London",
  "liverpool": "Europe/London",
  "bristol": "Europe/London",
  "geneva": "Europe/Zurich",
  "genève": "Europe/Zurich",
  "basel": "Europe/Zurich",
  "bern": "Europe/Zurich",
  "lausanne": "Europe/Zurich",
  "krakow": "Europe/Warsaw",
  "kraków": "Europe/Warsaw",
  "rotterdam": "Europe/Amsterdam",
  "the hague": "Europe/Amsterdam",
  "antwerp": "Europe/Brussels",
  "gothenburg": "Europe/Stockholm",
  "bergen": "Europe/Oslo",
  "kiev": "Europe/Kyiv",
  "st petersburg": "Europe/Moscow",
  "saint petersburg": "Europe/Moscow",
  "osaka": "Asia/Tokyo",
  "kyoto": "Asia/Tokyo",
  "yokohama": "Asia/Tokyo",
  "sapporo": "Asia/Tokyo",
  "shibuya": "Asia/Tokyo",
  "shinjuku": "Asia/Tokyo",
  "ginza": "Asia/Tokyo",
  "beijing": "Asia/Shanghai",
  "shenzhen": "Asia/Shanghai",
  "guangzhou": "Asia/Shanghai",
  "busan": "Asia/Seoul",
  "mumbai": "Asia/Kolkata",
  "delhi": "Asia/Kolkata",
  "new delhi": "Asia/Kolkata",
  "bangalore": "Asia/Kolkata",
  "bengaluru": "Asia/Kolkata",
  "chennai": "Asia/Kolkata",
  "kolkata": "Asia/Kolkata",
  "calcutta": "Asia/Kolkata",
  "hyderabad": "Asia/Kolkata",
  "lahore": "Asia/Karachi",
  "islamabad": "Asia/Karachi",
  "abu dhabi": "Asia/Dubai",
  "saigon": "Asia/Ho_Chi_Minh",
  "hanoi": "Asia/Bangkok",
  "phuket": "Asia/Bangkok",
  "bali": "Asia/Makassar",
  "san francisco": "America/Los_Angeles",
  "seattle": "America/Los_Angeles",
  "san diego": "America/Los_Angeles",
  "las vegas": "America/Los_Angeles",
  "portland": "America/Los_Angeles",
  "washington": "America/New_York",
  "boston": "America/New_York",
  "miami": "America/New_York",
  "atlanta": "America/New_York",
  "philadelphia": "America/New_York",
  "brooklyn": "America/New_York",
  "manhattan": "America/New_York",
  "nyc": "America/New_York",
  "dallas": "America/Chicago",
  "houston": "America/Chicago",
  "austin": "America/Chicago",
  "new orleans": "America/Chicago",
  "montreal": "America/Toronto",
  "montréal": "America/Toronto",
  "ottawa": "America/Toronto",
  "calgary": "America/Edmonton",
  "rio": "America/Sao_Paulo",
  "rio de janeiro": "America/Sao_Paulo",
  "cape town": "Africa/Johannesburg",
  "marrakech": "Africa/Casablanca",
  "marrakesh": "Africa/Casablanca",
  "canberra": "Australia/Sydney",
  "wellington": "Pacific/Auckland",
  "queenstown": "Pacific/Auckland",
  "guadalajara": "America/Mexico_City",
  "cancún": "America/Cancun"
}

/** Countries that decide which currency a shared sign or word means: by English name. */
const countryCurrencies: Record<string, string> = {
  "usa": "USD",
  "united states": "USD",
  "america": "USD",
  "canada": "CAD",
  "australia": "AUD",
  "new zealand": "NZD",
  "singapore": "SGD",
  "hong kong": "HKD",
  "taiwan": "TWD",
  "mexico": "MXN",
  "argentina": "ARS",
  "chile": "CLP",
  "colombia": "COP",
  "philippines": "PHP",
  "japan": "JPY",
  "china": "CNY",
  "sweden": "SEK",
  "norway": "NOK",
  "denmark": "DKK",
  "iceland": "ISK",
  "india": "INR",
  "pakistan": "PKR",
  "sri lanka": "LKR",
  "nepal": "NPR",
  "switzerland": "CHF",
  "uae": "AED",
  "united arab emirates": "AED",
  "morocco": "MAD"
}

/** The currency spent where a zone's clocks are, for the currencies that share a sign or word. */
const zoneCurrency = (zone: string): string | undefined => {
  if (zone.startsWith("Australia/")) return "AUD"
  if (zone.startsWith("America/Argentina/") || zone === "America/Buenos_Aires") return "ARS"
  const table: Record<string, string> = {
    "America/New_York": "USD",
    "America/Chicago": "USD",
    "America/Denver": "USD",
    "America/Los_Angeles": "USD",
    "America/Phoenix": "USD",
    "America/Anchorage": "USD",
    "America/Detroit": "USD",
    "Pacific/Honolulu": "USD",
    "America/Toronto": "CAD",
    "America/Vancouver": "CAD",
    "America/Edmonton": "CAD",
    "America/Winnipeg": "CAD",
    "America/Halifax": "CAD",
    "America/Regina": "CAD",
    "America/St_Johns": "CAD",
    "Pacific/Auckland": "NZD",
    "Asia/Singapore": "SGD",
    "Asia/Hong_Kong": "HKD",
    "Asia/Taipei": "TWD",
    "America/Mexico_City": "MXN",
    "America/Cancun": "MXN",
    "America/Monterrey": "MXN",
    "America/Tijuana": "MXN",
    "America/Santiago": "CLP",
    "America/Bogota": "COP",
    "Asia/Manila": "PHP",
    "Asia/Tokyo": "JPY",
    "Asia/Shanghai": "CNY",
    "Europe/Stockholm": "SEK",
    "Europe/Oslo": "NOK",
    "Europe/Copenhagen": "DKK",
    "Atlantic/Reykjavik": "ISK",
    "Asia/Kolkata": "INR",
    "Asia/Calcutta": "INR",
    "Asia/Karachi": "PKR",
    "Asia/Colombo": "LKR",
    "Asia/Kathmandu": "NPR",
    "Europe/Zurich": "CHF",
    "Asia/Dubai": "AED",
    "Africa/Casablanca": "MAD"
  }
  return table[zone]
}

interface Gazetteer {
  /** Lower-case, accent-free name (1 to 4 words) to its spelling and zone. */
  readonly cities: ReadonlyMap<string, { readonly name: string; readonly zone: string }>
  /** Lower-case zone name to the zone's spelling. */
  readonly zones: ReadonlyMap<string, string>
}

let gazetteer: Gazetteer | undefined

const getGazetteer = (): Gazetteer => {
  if (gazetteer !== undefined) return gazetteer
  const cities = new Map<string, { name: string; zone: string }>()
  const zones = new Map<string, string>()
  for (const zone of Intl.supportedValuesOf("timeZone")) {
    zones.set(zone.toLowerCase(), zone)
    if (unusableZones.test(zone) || !zone.includes("/")) continue
    const name = zone.slice(zone.lastIndexOf("/") + 1).replaceAll("_", " ")
    cities.set(stripAccents(name.toLowerCase()), { name, zone })
  }
  for (const [alias, zone] of Object.entries(cityAliases)) {
    const name = alias.split(" ").map((w) => w.length <= 3 && w === "nyc" ? "NYC" : w[0]!.toUpperCase() + w.slice(1))
      .join(" ").replace("De ", "de ").replace("The ", "The ")
    cities.set(stripAccents(alias), { name, zone })
  }
  zones.set("utc", "UTC")
  zones.set("gmt", "UTC")
  gazetteer = { cities, zones }
  return gazetteer
}

// ---------------------------------------------------------------------------------------------------
// Calendar arithmetic on days since 1970-01-01 (local civil days) and minutes since local midnight.

const civilFromDays = (days: number): { readonly y: number; readonly m: number; readonly d: number } => {
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d }
}

/** 0 is Sunday. */
const weekdayOf = (days: number) => (((days + 4) % 7) + 7) % 7

const addMonths = (days: number, months: number): number => {
  const { d, m, y } = civilFromDays(days)
  const total = y * 12 + (m - 1) + months
  const ny = Math.floor(total / 12)
  const nm = total - ny * 12 + 1
  return daysFromCivil(ny, nm, Math.min(d, daysInMonth(ny, nm)))
}

interface Clock {
  readonly zone: string
  /** createdAt's local day. */
  readonly today: number
  readonly nowMs: number
  /** Zone arithmetic is the costly part: a long request repeats the same local times. */
  readonly instants: Map<number, Instant | undefined>
}

type Problem = { readonly problem: "ambiguous" | "past" | "unreadable"; readonly what: string }
const isProblem = (u: unknown): u is Problem => typeof u === "object" && u !== null && "problem" in u

interface Instant {
  readonly ms: number
  readonly iso: string
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

const formatZoned = (zoned: DateTime.Zoned, utc: boolean): string | undefined => {
  const p = DateTime.toParts(zoned)
  if (p.year < 1 || p.year > 9999) return undefined
  const offset = Math.round(DateTime.zonedOffset(zoned) / 60_000)
  const sign = offset < 0 ? "-" : "+"
  const abs = Math.abs(offset)
  const zone = utc && offset === 0 ? "Z" : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${zone}`
}

const isUtcZone = (zone: string) => zone === "UTC" || zone === "Etc/UTC"

/** Local wall time to an instant; a time skipped by a DST change moves forward, as clocks do. */
const localInstant = (clock: Clock, days: number, minutes: number): Instant | undefined => {
  const key = days * 1440 + minutes
  if (clock.instants.has(key)) return clock.instants.get(key)
  const instant = computeLocalInstant(clock, days, minutes)
  clock.instants.set(key, instant)
  return instant
}

const computeLocalInstant = (clock: Clock, days: number, minutes: number): Instant | undefined => {
  const day = days + Math.floor(minutes / 1440)
  const rest = ((minutes % 1440) + 1440) % 1440
  const { d, m, y } = civilFromDays(day)
  if (y < 1 || y > 9999) return undefined
  const zoned = DateTime.makeZoned({ year: y, month: m, day: d, hour: Math.floor(rest / 60), minute: rest % 60 }, {
    timeZone: clock.zone,
    adjustForTimeZone: true,
    disambiguation: "compatible"
  })
  if (Option.isNone(zoned)) return undefined
  const iso = formatZoned(zoned.value, isUtcZone(clock.zone))
  return iso === undefined ? undefined : { ms: DateTime.toEpochMillis(zoned.value), iso }
}

const exactInstant = (clock: Clock, ms: number): Instant | undefined => {
  const zoned = DateTime.makeZoned(ms, { timeZone: clock.zone })
  if (Option.isNone(zoned)) return undefined
  const iso = formatZoned(zoned.value, isUtcZone(clock.zone))
  return iso === undefined ? undefined : { ms, iso }
}

const makeClock = (createdAt: DateTime.Utc, zone: string): Clock | undefined => {
  const zoned = DateTime.makeZoned(createdAt, { timeZone: zone })
  if (Option.isNone(zoned)) return undefined
  const p = DateTime.toParts(zoned.value)
  return {
    zone,
    today: daysFromCivil(p.year, p.month, p.day),
    nowMs: DateTime.toEpochMillis(createdAt),
    instants: new Map()
  }
}

// ---------------------------------------------------------------------------------------------------
// Dates and times as read, before a zone turns them into instants.

/** Local days [start, end). */
interface DaySpan {
  readonly start: number
  readonly end: number
}

type DaySpec = (clock: Clock) => DaySpan | Problem

/** Minutes since local midnight; `ambiguous` when written without am/pm on a 12-hour clock. */
interface TimeSpec {
  readonly start: number
  readonly end?: number
  readonly ambiguous: boolean
  readonly text: string
}

type Hint = "am" | "pm" | "lunch"

interface Moment {
  readonly day?: DaySpec
  readonly time?: TimeSpec
  readonly hint?: Hint
  readonly text: string
}

type Cue = "on" | "by" | "before"

interface WhenReading {
  readonly cue: Cue
  readonly from: Moment
  readonly to?: Moment
  /** An exact instant ("in 20 minutes", "within 2 hours"), zone-independent. */
  readonly exactMs?: (clock: Clock) => number
}

const months: Record<string, number> = {}
const monthNames: ReadonlyArray<ReadonlyArray<string>> = [
  ["january", "jan", "janeiro", "enero", "janvier", "januar", "gennaio"],
  ["february", "feb", "fevereiro", "febrero", "février", "fevrier", "februar", "febbraio"],
  ["march", "mar", "março", "marco", "marzo", "mars", "märz", "marz"],
  ["april", "apr", "abril", "avril", "aprile"],
  ["may", "maio", "mayo", "mai", "maggio"],
  ["june", "jun", "junho", "junio", "juin", "juni", "giugno"],
  ["july", "jul", "julho", "julio", "juillet", "juli", "luglio"],
  ["august", "aug", "agosto", "août", "aout"],
  ["september", "sep", "sept", "setembro", "septiembre", "setiembre", "septembre", "settembre"],
  ["october", "oct", "outubro", "octubre", "octobre", "oktober", "ottobre"],
  ["november", "nov", "novembro", "noviembre", "novembre"],
  ["december", "dec", "dezembro", "diciembre", "décembre", "decembre", "dezember", "dicembre"]
]
monthNames.forEach((names, index) => names.forEach((name) => months[name] = index + 1))

const weekdays: Record<string, number> = {
  sunday: 0,
  monday: 1,
  tuesday: 2,
  wednesday: 3,
  thursday: 4,
  friday: 5,
  saturday: 6
}
const weekdayAbbreviations: Record<string, number> = {
  sun: 0,
  mon: 1,
  tue: 2,
  tues: 2,
  wed: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  fri: 5,
  sat: 6
}

const dayWords = new Set(["today", "tonight", "tomorrow", "tmrw", "tmr", "tomorow", "tommorow", "tommorrow"])
const timeUnits: Record<string, "minute" | "hour" | "day" | "week" | "month"> = {
  minute: "minute",
  minutes: "minute",
  mins: "minute",
  min: "minute",
  hour: "hour",
  hours: "hour",
  hrs: "hour",
  hr: "hour",
  day: "day",
  days: "day",
  week: "week",
  weeks: "week",
  fortnight: "week",
  month: "month",
  months: "month"
}

const single = (start: number): DaySpan => ({ start, end: start + 1 })

/** The next date on or after today with this month and day (a year is skipped when it lacks the day). */
const nextMonthDay = (today: number, month: number, day: number): number | undefined => {
  const { y } = civilFromDays(today)
  for (let year = y; year <= y + 8; year++) {
    if (day > daysInMonth(year, month)) continue
    const candidate = daysFromCivil(year, month, day)
    if (candidate >= today) return candidate
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------
// The reader.

interface MoneyReading {
  readonly amount: Decimal | "ambiguous"
  readonly currency: CurrencyMention | undefined
  readonly perUnit: boolean
  readonly text: string
}

interface QuantityReading {
  readonly count: number | "too-large"
  readonly unit: string | undefined
}

interface PlaceReading {
  readonly place: string
  readonly zone: string | undefined
  readonly currency: string | undefined
}

interface Reading {
  readonly money: Array<MoneyReading>
  /** A currency named apart from any number ("budget 200, in euros"). */
  readonly currencies: Array<CurrencyMention>
  readonly whens: Array<WhenReading>
  readonly zones: Array<string>
  readonly places: Array<PlaceReading>
  readonly quantities: Array<QuantityReading>
  readonly hints: Set<Hint>
  /** A reading that needs the budget restated ("per person", a budget word with no readable amount). */
  readonly noBudget: boolean
  readonly words: number
}

const budgetCues = new Set(["under", "below", "max", "maximum", "most", "budget", "spend", "within", "cap", "limit"])
/** Words that may follow a bare amount without making it a count of something ("under 200 on a gift"). */
const moneyFollowers = new Set([
  "and",
  "or",
  "for",
  "please",
  "total",
  "tops",
  "on",
  "in",
  "at",
  "to",
  "with",
  "by",
  "each",
  "per",
  "max",
  "maximum",
  "including",
  "incl",
  "all",
  "overall",
  "altogether",
  "but",
  "so",
  "if",
  "the",
  "a",
  "an",
  "this",
  "next",
  "tomorrow",
  "today",
  "tonight"
])
const minimumCues = new Set(["over", "above", "least", "min", "minimum", "from", "starting"])
const perUnitWords = new Set([
  "person",
  "head",
  "night",
  "day",
  "ticket",
  "piece",
  "kg",
  "item",
  "hour",
  "guest",
  "adult",
  "room",
  "seat",
  "pax",
  "unit"
])
const peopleWords = new Set([
  "people",
  "persons",
  "person",
  "ppl",
  "pax",
  "guests",
  "guest",
  "diners",
  "colleagues",
  "friends",
  "coworkers"
])
/** Counts that say how many people come, without being "people". */
const partyUnits = new Set(["adults", "adult", "children", "kids", "child"])
const containerWords = new Set([
  "bottle",
  "bottles",
  "box",
  "boxes",
  "pack",
  "packs",
  "packet",
  "packets",
  "bag",
  "bags",
  "can",
  "cans",
  "carton",
  "cartons",
  "jar",
  "jars",
  "kg",
  "kilos",
  "kilograms",
  "lbs",
  "litres",
  "liters",
  "loaves",
  "loaf",
  "pieces",
  "slices",
  "cups",
  "dozen",
  "pairs",
  "pair",
  "crates",
  "bunches",
  "bunch"
])
const unitAdjectives = new Set([
  "large",
  "small",
  "medium",
  "big",
  "extra",
  "fresh",
  "red",
  "white",
  "black",
  "green",
  "blue",
  "yellow",
  "pink",
  "free-range",
  "organic",
  "single",
  "double",
  "twin",
  "adult",
  "economy",
  "business",
  "vip",
  "return",
  "one-way",
  "train",
  "plane",
  "flight",
  "bus",
  "concert",
  "movie",
  "cinema",
  "theatre",
  "theater",
  "museum",
  "ceiling",
  "birthday",
  "hotel",
  "king",
  "queen",
  "sparkling",
  "rosé"
])
const notUnits = new Set([
  "am",
  "pm",
  "th",
  "st",
  "nd",
  "rd",
  "o'clock",
  "of",
  "and",
  "or",
  "to",
  "in",
  "at",
  "on",
  "by",
  "for",
  "per",
  "x",
  "times",
  "more",
  "less",
  "percent",
  "star",
  "stars",
  "the",
  "a",
  "an",
  "is",
  "are",
  "was",
  "h",
  "k",
  "m",
  "km",
  "mi",
  "miles",
  "min",
  "mins",
  "hrs",
  "hr",
  "years",
  "year",
  "yo",
  "old",
  "with",
  "from",
  "until",
  "till",
  "p",
  "people's",
  "if",
  "but",
  "so",
  "or",
  "nights'"
])

// English, and the commonest of Portuguese, Spanish, French and German ("em Lisboa", "nach Berlin").
const placePrepositions = new Set([
  "in",
  "at",
  "near",
  "around",
  "to",
  "from",
  "towards",
  "into",
  "em",
  "en",
  "à",
  "nach"
])
const keptPrepositions = new Set(["near", "around", "to", "from", "towards"])
const placeNouns = new Set([
  "station",
  "airport",
  "street",
  "st",
  "road",
  "rd",
  "avenue",
  "ave",
  "square",
  "park",
  "beach",
  "centre",
  "center",
  "city",
  "downtown",
  "market",
  "bridge",
  "district",
  "mall",
  "terminal",
  "port",
  "harbour",
  "harbor",
  "hospital",
  "university",
  "campus",
  "office",
  "old",
  "town"
])
const placeConnectors = new Set([
  "de",
  "do",
  "da",
  "dos",
  "das",
  "del",
  "della",
  "di",
  "du",
  "la",
  "le",
  "les",
  "am",
  "an",
  "der",
  "von",
  "upon",
  "sur",
  "y",
  "el",
  "al",
  "of",
  "&"
])
const notPlaces = new Set([
  "i",
  "i'm",
  "i'd",
  "i'll",
  "please",
  "today",
  "tonight",
  "tomorrow",
  "next",
  "this",
  "mr",
  "mrs",
  "ms",
  "dr",
  "mum",
  "mom",
  "dad",
  "mother",
  "father",
  "grandma",
  "grandpa",
  "english",
  "portuguese",
  "spanish",
  "french",
  "german",
  "italian",
  "japanese",
  "chinese",
  "christmas",
  "easter",
  "asap",
  "noon",
  "midnight",
  "am",
  "pm",
  "utc",
  "gmt",
  "my",
  "our",
  "a",
  "an",
  "it",
  "least",
  "most",
  "home",
  "work",
  "end",
  "time",
  "once"
])

const isCapitalised = (token: Token | undefined) =>
  token !== undefined && token.kind === "word" && token.text[0] !== token.lower[0]

class Reader {
  readonly tokens: Array<Token>
  readonly out: Reading

  constructor(text: string) {
    this.tokens = tokenize(text)
    this.out = {
      money: [],
      currencies: [],
      whens: [],
      zones: [],
      places: [],
      quantities: [],
      hints: new Set(),
      noBudget: false,
      words: this.tokens.filter((t) => t.kind === "word").length
    }
  }

  lower(i: number): string {
    return this.tokens[i]?.lower ?? ""
  }

  /** Token i follows token i-1 with no space ("7pm", "$200"). */
  attached(i: number): boolean {
    const token = this.tokens[i]
    return token !== undefined && !token.gap
  }

  read(): Reading {
    const n = this.tokens.length
    let i = 0
    while (i < n) {
      const end = this.readWhen(i) ?? this.readMoney(i) ?? this.readQuantity(i) ?? this.readPlace(i) ??
        this.readZone(i) ?? this.readCurrencyAlone(i) ?? this.readHint(i)
      i = end ?? i + 1
    }
    return this.out
  }

  // ---- hints: parts of the day that settle "at 7" -------------------------------------------------

  readHint(i: number): number | undefined {
    const w = this.lower(i)
    if (["evening", "tonight", "night", "dinner", "supper", "afternoon"].includes(w)) this.out.hints.add("pm")
    else if (["morning", "breakfast"].includes(w)) this.out.hints.add("am")
    else if (w === "lunch" || w === "brunch") this.out.hints.add("lunch")
    return undefined
  }

  // ---- money -------------------------------------------------------------------------------------

  readCurrency(i: number): { end: number; currency: CurrencyMention } | undefined {
    const token = this.tokens[i]
    if (token === undefined) return undefined
    if (token.kind === "sym") {
      const symbol = currencySymbols[token.text]
      return symbol === undefined ? undefined : { end: i + 1, currency: symbol }
    }
    if (token.kind !== "word") return undefined
    const next = this.tokens[i + 1]
    if (next?.text === "$" && !next.gap) {
      const code = dollarPrefixes[token.lower] ?? (token.lower === "r" ? "BRL" : undefined)
      if (code !== undefined) return { end: i + 2, currency: { code } }
    }
    if (token.text.length === 3 && token.text === token.text.toUpperCase() && currencyCodes.has(token.text)) {
      return { end: i + 1, currency: { code: token.text } }
    }
    if (lowerCodes.has(token.lower)) return { end: i + 1, currency: { code: token.lower.toUpperCase() } }
    const two = `${token.lower} ${this.lower(i + 1)}`
    const adjective = currencyAdjectives[two] !== undefined ?
      { code: currencyAdjectives[two]!, words: 2 } :
      currencyAdjectives[token.lower] !== undefined ?
      { code: currencyAdjectives[token.lower]!, words: 1 } :
      undefined
    if (adjective !== undefined) {
      const noun = currencyWords[this.lower(i + adjective.words)]
      if (noun !== undefined) return { end: i + adjective.words + 1, currency: { code: adjective.code } }
    }
    const word = currencyWords[token.lower]
    if (word === undefined) return undefined
    if ((token.lower === "pounds" || token.lower === "pound") && this.lower(i + 1) === "of") return undefined
    const end = (token.lower === "kr" || token.lower === "rs") && this.tokens[i + 1]?.text === "." ? i + 2 : i + 1
    return { end, currency: word }
  }

  /** A number with an optional multiplier ("1.5k", "2 thousand"): the index after it. */
  readAmountNumber(i: number): { end: number; amount: Decimal | "ambiguous" } | undefined {
    const token = this.tokens[i]
    if (token?.kind !== "num") return undefined
    if (this.tokens[i - 1]?.text === "." && this.attached(i)) return undefined
    const parsed = parseNumber(token.text)
    if (parsed === undefined) return undefined
    const suffix = this.lower(i + 1)
    const attached = this.attached(i + 1)
    const zeros = (attached && suffix === "k") || suffix === "thousand" || suffix === "grand" ?
      3 :
      (attached && suffix === "m") || suffix === "million" || suffix === "mn" ?
      6 :
      0
    if (zeros === 0) return { end: i + 1, amount: parsed }
    return { end: i + 2, amount: parsed === "ambiguous" ? parsed : timesThousand(parsed, zeros) }
  }

  /** Whether the words before i make a number there an upper bound on spending, a lower one, or neither. */
  budgetCue(i: number): "max" | "min" | undefined {
    for (let k = i - 1; k >= Math.max(0, i - 3); k--) {
      const w = this.lower(k)
      if (w === "than") {
        const before = this.lower(k - 1)
        return ["less", "cheaper", "lower", "fewer"].includes(before) || this.lower(k - 2) === "no" ||
            this.lower(k - 2) === "not"
          ? "max"
          : "min"
      }
      if (w === "to" && this.lower(k - 1) === "up") return "max"
      if (w === "exceed" || w === "exceeding") return "max"
      if (budgetCues.has(w)) return "max"
      if (minimumCues.has(w)) return "min"
      if (this.tokens[k]?.kind !== "word" || ["is", "of", "a", "about", "around", "roughly", "approx"].includes(w)) {
        continue
      }
      return undefined
    }
    return undefined
  }

  /** After an amount: "each", "per person", "a night", "/night", "pp". */
  perUnitAt(i: number): number | undefined {
    const w = this.lower(i)
    if (w === "each" || w === "apiece" || w === "pp" || w === "pppn") return i + 1
    if (
      (w === "per" || w === "a" || w === "an" || w === "/") && perUnitWords.has(this.lower(i + 1).replace(/s$/, ""))
    ) {
      return i + 2
    }
    return undefined
  }

  readMoney(i: number): number | undefined {
    const prefix = this.readCurrency(i)
    const numberAt = prefix?.end ?? i
    const first = this.readAmountNumber(numberAt)
    if (first === undefined) return undefined
    let end = first.end
    let suffix = this.readCurrency(end)
    if (suffix !== undefined) end = suffix.end
    let amount = first.amount
    let currency = prefix?.currency ?? suffix?.currency
    let ranged = false
    // "between 100 and 200 dollars", "$100-$200", "100 to 200 EUR": the upper bound is the budget.
    const joiner = this.lower(end)
    if (joiner === "-" || joiner === "–" || joiner === "to" || (joiner === "and" && this.lower(i - 1) === "between")) {
      const secondPrefix = this.readCurrency(end + 1)
      const second = this.readAmountNumber(secondPrefix?.end ?? end + 1)
      if (second !== undefined) {
        const secondSuffix = this.readCurrency(second.end)
        const secondCurrency = secondPrefix?.currency ?? secondSuffix?.currency
        if (currency !== undefined || secondCurrency !== undefined || this.lower(i - 1) === "between") {
          amount = second.amount
          currency = secondCurrency ?? currency
          end = secondSuffix?.end ?? second.end
          suffix = secondSuffix
          ranged = true
        }
      }
    }
    const cue = this.budgetCue(i)
    if (currency === undefined) {
      // A bare number is money only after a spending word and when no unit follows it ("under 30 minutes").
      if (cue !== "max" || ranged && this.lower(i - 1) !== "between") return undefined
      const next = this.tokens[end]
      if (next !== undefined && next.kind === "word" && !moneyFollowers.has(next.lower)) return undefined
      if (next?.kind === "sym" && ["%", ":", "/", "-"].includes(next.text)) return undefined
    }
    const perUnit = this.perUnitAt(end)
    if (cue === "min" && !ranged) return perUnit ?? end
    this.out.money.push({
      amount,
      currency,
      perUnit: perUnit !== undefined,
      text: this.tokens.slice(i, end).map((t, k) => (k > 0 && t.gap ? " " : "") + t.text).join("")
    })
    return perUnit ?? end
  }

  readCurrencyAlone(i: number): number | undefined {
    const found = this.readCurrency(i)
    if (found === undefined) return undefined
    const token = this.tokens[i]!
    // Words that double as other words ("real", "won", "rand") count only next to a number.
    if (token.kind === "word" && ["rs", "kr", "rand", "lira", "dong", "won"].includes(token.lower)) return undefined
    this.out.currencies.push(found.currency)
    return found.end
  }

  // ---- dates and times ---------------------------------------------------------------------------

  ordinalAt(i: number): { end: number; day: number } | undefined {
    const token = this.tokens[i]
    if (token?.kind !== "num" || !/^\d{1,2}$/.test(token.text)) return undefined
    const day = Number(token.text)
    if (day < 1 || day > 31) return undefined
    const suffix = this.lower(i + 1)
    const hasSuffix = this.attached(i + 1) && ["st", "nd", "rd", "th", "º", "ª", "er", "o"].includes(suffix)
    return { end: hasSuffix ? i + 2 : i + 1, day }
  }

  yearAt(i: number): { end: number; year: number } | undefined {
    let k = i
    if (this.lower(k) === "," || this.lower(k) === "de") k++
    const token = this.tokens[k]
    if (token?.kind === "num" && /^(?:19|20|21)\d\d$/.test(token.text)) return { end: k + 1, year: Number(token.text) }
    return undefined
  }

  monthAt(i: number): { end: number; month: number } | undefined {
    const w = this.lower(i)
    const month = months[w]
    if (month === undefined) return undefined
    return { end: this.tokens[i + 1]?.text === "." && w.length <= 4 ? i + 2 : i + 1, month }
  }

  /** A month and day with an optional year: a past date without a year means next year's. */
  static monthDay = (month: number, day: number, year: number | undefined, what: string): DaySpec => (clock) => {
    if (year !== undefined) {
      if (day > daysInMonth(year, month)) return { problem: "unreadable", what }
      return single(daysFromCivil(year, month, day))
    }
    if (day > 29 && day > daysInMonth(2024, month)) return { problem: "unreadable", what }
    const found = nextMonthDay(clock.today, month, day)
    return found === undefined ? { problem: "unreadable", what } : single(found)
  }

  /** A day or a run of days at i: the index after it and how it resolves. */
  readDay(i: number): { end: number; day: DaySpec; hint?: Hint; text: string } | undefined {
    const found = this.readDayInner(i)
    if (found === undefined) return undefined
    // "tomorrow morning", "Friday night", "Saturday evening".
    const part = this.lower(found.end)
    const hint: Hint | undefined = part === "morning" ? "am" : ["evening", "night", "afternoon"].includes(part) ?
      "pm" :
      found.hint
    const end = hint !== found.hint ? found.end + 1 : found.end
    const text = this.tokens.slice(i, end).map((t, k) => (k > 0 && t.gap ? " " : "") + t.text).join("")
    return hint === undefined ? { end, day: found.day, text } : { end, day: found.day, hint, text }
  }

  readDayInner(i: number): { end: number; day: DaySpec; hint?: Hint } | undefined {
    const w = this.lower(i)
    const token = this.tokens[i]
    if (token === undefined) return undefined
    const what = token.text

    // ISO 8601: 2026-12-03
    if (token.kind === "num" && /^\d{4}$/.test(token.text) && this.lower(i + 1) === "-" && this.attached(i + 1)) {
      const m = this.tokens[i + 2]
      const d = this.tokens[i + 4]
      if (
        m?.kind === "num" && this.attached(i + 2) && this.lower(i + 3) === "-" && this.attached(i + 3) &&
        d?.kind === "num" && this.attached(i + 4) && /^\d{1,2}$/.test(m.text) && /^\d{1,2}$/.test(d.text)
      ) {
        const year = Number(token.text)
        const month = Number(m.text)
        const day = Number(d.text)
        const spec: DaySpec = month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) ?
          () => single(daysFromCivil(year, month, day)) :
          () => ({ problem: "unreadable", what: `${token.text}-${m.text}-${d.text}` })
        // 2026-12-03T19:00
        // 2026-12-03T19:00: the "T" joins the time that follows.
        const t = this.tokens[i + 5]
        const joined = t !== undefined && this.attached(i + 5) && t.lower === "t" && this.tokens[i + 6]?.kind === "num"
        return { end: joined ? i + 6 : i + 5, day: spec }
      }
    }

    // Numeric dates: 12/03/2026 (ambiguous when both could be the month), 12.03.2026 (day first).
    if (token.kind === "num" && /^\d{1,2}\.\d{1,2}\.\d{2,4}$/.test(token.text)) {
      const [d, m, y] = token.text.split(".").map(Number) as [number, number, number]
      const year = y < 100 ? 2000 + y : y
      return {
        end: i + 1,
        day: () =>
          m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(year, m) ? single(daysFromCivil(year, m, d)) : {
            problem: "unreadable",
            what
          }
      }
    }
    if (
      token.kind === "num" && /^\d{1,2}$/.test(token.text) && this.lower(i + 1) === "/" && this.attached(i + 1) &&
      this.tokens[i + 2]?.kind === "num" && this.attached(i + 2) && /^\d{1,2}$/.test(this.tokens[i + 2]!.text)
    ) {
      const a = Number(token.text)
      const b = Number(this.tokens[i + 2]!.text)
      let end = i + 3
      let year: number | undefined
      const y = this.tokens[i + 4]
      if (
        this.lower(i + 3) === "/" && this.attached(i + 3) && y?.kind === "num" && this.attached(i + 4) &&
        /^(?:\d{2}|\d{4})$/.test(y.text)
      ) {
        year = y.text.length === 2 ? 2000 + Number(y.text) : Number(y.text)
        end = i + 5
      }
      const text = this.tokens.slice(i, end).map((t) => t.text).join("")
      const dayFirst = a > 12 && b <= 12
      const monthFirst = b > 12 && a <= 12
      if ((a <= 12 && b <= 12 && a !== b) || (!dayFirst && !monthFirst && a !== b)) {
        return { end, day: () => ({ problem: "ambiguous", what: text }) }
      }
      const [day, month] = monthFirst ? [b, a] : [a, b]
      return { end, day: Reader.monthDay(month, day, year, text) }
    }

    // 12 March [2027], 12th of March, 12 de março, 12-15 March
    const ordinal = this.ordinalAt(i)
    if (ordinal !== undefined) {
      let k = ordinal.end
      let lastDay: number | undefined
      const joiner = this.lower(k)
      if (["-", "–", "to", "until", "till", "and", "through", "thru"].includes(joiner)) {
        const second = this.ordinalAt(k + 1)
        if (second !== undefined) {
          const afterSecond = ["of", "de"].includes(this.lower(second.end)) ? second.end + 1 : second.end
          if (this.monthAt(afterSecond) !== undefined) {
            lastDay = second.day
            k = afterSecond
          }
        }
      }
      if (lastDay === undefined && ["of", "de"].includes(this.lower(k))) k++
      const month = this.monthAt(k)
      if (month !== undefined) {
        const year = this.yearAt(month.end)
        const end = year?.end ?? month.end
        const text = this.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
        return { end, day: Reader.dayRange(month.month, ordinal.day, lastDay, year?.year, text) }
      }
    }

    // March 12 [2027], March 12th, March 12-15
    const month = this.monthAt(i)
    if (month !== undefined) {
      const day = this.ordinalAt(month.end)
      if (day !== undefined) {
        let k = day.end
        let lastDay: number | undefined
        if (["-", "–", "to", "until", "till", "through", "thru"].includes(this.lower(k))) {
          const second = this.ordinalAt(k + 1)
          if (second !== undefined) {
            lastDay = second.day
            k = second.end
          }
        }
        const year = this.yearAt(k)
        const end = year?.end ?? k
        const text = this.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
        return { end, day: Reader.dayRange(month.month, day.day, lastDay, year?.year, text) }
      }
    }

    // the 12th
    if (w === "the") {
      const ordinal = this.ordinalAt(i + 1)
      if (ordinal !== undefined && ordinal.end === i + 3 && this.monthAt(ordinal.end) === undefined) {
        const dayOfMonth = ordinal.day
        return {
          end: ordinal.end,
          day: (clock) => {
            for (let k = 0; k < 12; k++) {
              const first = addMonths(clock.today - civilFromDays(clock.today).d + 1, k)
              const { m, y } = civilFromDays(first)
              if (dayOfMonth > daysInMonth(y, m)) continue
              const candidate = daysFromCivil(y, m, dayOfMonth)
              if (candidate >= clock.today) return single(candidate)
            }
            return { problem: "unreadable", what: `the ${dayOfMonth}th` }
          }
        }
      }
    }

    if (w === "today") return { end: i + 1, day: (clock) => single(clock.today) }
    if (w === "tonight") return { end: i + 1, day: (clock) => single(clock.today), hint: "pm" }
    if (w === "yesterday") return { end: i + 1, day: () => ({ problem: "past", what }) }
    if (
      w === "the" && this.lower(i + 1) === "day" && this.lower(i + 2) === "after" && dayWords.has(this.lower(i + 3))
    ) {
      return { end: i + 4, day: (clock) => single(clock.today + 2) }
    }
    if (
      w === "day" && this.lower(i + 1) === "after" && dayWords.has(this.lower(i + 2)) && this.lower(i + 2) !== "today"
    ) {
      return { end: i + 3, day: (clock) => single(clock.today + 2) }
    }
    if (dayWords.has(w)) return { end: i + 1, day: (clock) => single(clock.today + 1) }
    if (w === "this" && ["morning", "afternoon", "evening"].includes(this.lower(i + 1))) {
      return { end: i + 2, day: (clock) => single(clock.today), hint: this.lower(i + 1) === "morning" ? "am" : "pm" }
    }

    // [this|next|coming] Friday [the 13th] [, 13 March]
    const modifier = ["this", "next", "coming", "on"].includes(w) ? w : undefined
    const k = modifier === undefined ? i : i + 1
    const dayName = this.lower(k)
    const weekday = weekdays[dayName] ?? weekdays[dayName.replace(/s$/, "")] ??
      (modifier !== undefined || this.lower(i - 1) === "on" || this.lower(i - 1) === "by" ?
        weekdayAbbreviations[dayName] :
        undefined)
    if (weekday !== undefined) {
      let end = k + 1
      if (this.tokens[end]?.text === "." && dayName.length <= 4) end++
      // Friday the 13th, Friday 13 March, Friday, March 13
      let afterComma = this.lower(end) === "," ? end + 1 : end
      if (this.lower(afterComma) === "the") afterComma++
      const dated = this.readDayInner(afterComma)
      const ordinalOnly = dated === undefined ? this.ordinalAt(afterComma) : undefined
      if (dated !== undefined) {
        const text = this.tokens.slice(i, dated.end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
        return {
          end: dated.end,
          day: (clock) => {
            const span = dated.day(clock)
            if (isProblem(span)) return span
            return span.end - span.start === 1 && weekdayOf(span.start) === weekday ?
              span :
              { problem: "ambiguous", what: text }
          }
        }
      }
      if (ordinalOnly !== undefined && ordinalOnly.end > afterComma) {
        const dayOfMonth = ordinalOnly.day
        const text = this.tokens.slice(i, ordinalOnly.end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
        return {
          end: ordinalOnly.end,
          day: (clock) => {
            for (let m = 0; m < 12 * 30; m++) {
              const first = addMonths(clock.today - civilFromDays(clock.today).d + 1, m)
              const { m: month, y } = civilFromDays(first)
              if (dayOfMonth > daysInMonth(y, month)) continue
              const candidate = daysFromCivil(y, month, dayOfMonth)
              if (candidate >= clock.today && weekdayOf(candidate) === weekday) return single(candidate)
            }
            return { problem: "unreadable", what: text }
          }
        }
      }
      const text = this.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
      return {
        end,
        day: (clock) => {
          const ahead = (weekday - weekdayOf(clock.today) + 7) % 7
          if (modifier === "this") return single(clock.today + ahead)
          if (modifier === "next" || modifier === "coming") return single(clock.today + (ahead === 0 ? 7 : ahead))
          // "Friday" said on a Friday: today or a week today? Ask.
          return ahead === 0 ? { problem: "ambiguous", what: text } : single(clock.today + ahead)
        }
      }
    }

    // this/next weekend, this/next week, this/next month
    if (
      modifier !== undefined && modifier !== "on" && ["weekend", "week", "month", "year"].includes(this.lower(i + 1))
    ) {
      const unit = this.lower(i + 1)
      const next = modifier !== "this"
      return {
        end: i + 2,
        day: (clock) => {
          const wd = weekdayOf(clock.today)
          if (unit === "weekend") {
            const saturday = wd === 0 ? clock.today - 1 : clock.today + (6 - wd)
            const start = next ? saturday + 7 : saturday
            return { start, end: start + 2 }
          }
          if (unit === "week") {
            const monday = clock.today + ((8 - wd) % 7 || 7)
            return next ? { start: monday, end: monday + 7 } : { start: clock.today, end: monday }
          }
          const firstOfMonth = clock.today - civilFromDays(clock.today).d + 1
          if (unit === "month") {
            const following = addMonths(firstOfMonth, 1)
            return next ? { start: following, end: addMonths(firstOfMonth, 2) } : { start: clock.today, end: following }
          }
          const { y } = civilFromDays(clock.today)
          return next ?
            { start: daysFromCivil(y + 1, 1, 1), end: daysFromCivil(y + 2, 1, 1) } :
            { start: clock.today, end: daysFromCivil(y + 1, 1, 1) }
        }
      }
    }
    if (w === "weekend" && this.lower(i - 1) === "the") {
      return {
        end: i + 1,
        day: (clock) => {
          const wd = weekdayOf(clock.today)
          const saturday = wd === 0 ? clock.today - 1 : clock.today + (6 - wd)
          return { start: saturday, end: saturday + 2 }
        }
      }
    }

    // [the] end of [the] week/month/year: its last day (the week ends on Sunday, as ISO 8601 has it).
    let e = i
    if (w === "the") e++
    if (this.lower(e) === "end" && this.lower(e + 1) === "of") {
      let u = e + 2
      if (["the", "this"].includes(this.lower(u))) u++
      const unit = this.lower(u)
      if (["week", "month", "year"].includes(unit)) {
        return {
          end: u + 1,
          day: (clock) => {
            if (unit === "week") return single(clock.today + ((7 - weekdayOf(clock.today)) % 7))
            if (unit === "month") return single(addMonths(clock.today - civilFromDays(clock.today).d + 1, 1) - 1)
            return single(daysFromCivil(civilFromDays(clock.today).y, 12, 31))
          }
        }
      }
      const month = this.monthAt(u)
      if (month !== undefined) {
        return {
          end: month.end,
          day: (clock) => {
            const first = Reader.monthDay(month.month, 1, undefined, "")(clock)
            if (isProblem(first)) return first
            const { m, y } = civilFromDays(first.start)
            return single(daysFromCivil(y, m, daysInMonth(y, m)))
          }
        }
      }
    }
    return undefined
  }

  static dayRange =
    (month: number, first: number, last: number | undefined, year: number | undefined, what: string) =>
    (clock: Clock): DaySpan | Problem => {
      const start = Reader.monthDay(month, first, year, what)(clock)
      if (isProblem(start) || last === undefined) return start
      if (last < first) return { problem: "unreadable", what }
      const { m, y } = civilFromDays(start.start)
      if (last > daysInMonth(y, m)) return { problem: "unreadable", what }
      return { start: start.start, end: daysFromCivil(y, m, last) + 1 }
    }

  /** A clock time at i. A bare number ("at 7") counts only where `bare` says the words before make it a time. */
  readTime(i: number, bare: boolean): { end: number; time: TimeSpec } | undefined {
    const first = this.readClock(i, bare)
    if (first === undefined) return undefined
    const joiner = this.lower(first.end)
    if (["-", "–", "to", "until", "till", "and"].includes(joiner)) {
      const second = this.readClock(first.end + 1, true)
      if (second !== undefined && (joiner !== "and" || this.lower(i - 1) === "between")) {
        let start = first.time
        // "7-9pm": the first takes the second's half of the day.
        if (start.ambiguous && !second.time.ambiguous && start.start < 720) {
          const pm = second.time.start >= 720 && start.start + 720 < second.time.start
          start = { ...start, start: pm ? start.start + 720 : start.start, ambiguous: false }
        }
        const text = this.tokens.slice(i, second.end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
        return {
          end: second.end,
          time: {
            start: start.start,
            end: second.time.start,
            ambiguous: start.ambiguous || second.time.ambiguous,
            text
          }
        }
      }
    }
    return first
  }

  readClock(i: number, bare: boolean): { end: number; time: TimeSpec } | undefined {
    const w = this.lower(i)
    if (w === "noon" || w === "midday") return { end: i + 1, time: { start: 720, ambiguous: false, text: w } }
    if (w === "midnight") return { end: i + 1, time: { start: 1440, ambiguous: false, text: w } }
    const token = this.tokens[i]
    if (token?.kind !== "num") return undefined
    let hour: number
    let minute = 0
    let end = i + 1
    let twentyFour = false
    const dotted = /^(\d{1,2})\.(\d{2})$/.exec(token.text)
    if (dotted !== null) {
      hour = Number(dotted[1])
      minute = Number(dotted[2])
    } else if (/^\d{1,2}$/.test(token.text)) {
      hour = Number(token.text)
      if (token.text.length === 2 && token.text[0] === "0") twentyFour = true
    } else {
      return undefined
    }
    let explicit = dotted !== null
    if (dotted === null && [":", "h"].includes(this.lower(end)) && this.attached(end)) {
      const m = this.tokens[end + 1]
      if (m?.kind === "num" && this.attached(end + 1) && /^\d{2}$/.test(m.text)) {
        minute = Number(m.text)
        end += 2
        explicit = true
        if (this.lower(end - 2) === "h") twentyFour = true
        // 19:00:00
        if (this.lower(end) === ":" && this.tokens[end + 1]?.kind === "num" && this.attached(end + 1)) end += 2
      } else if (this.lower(end) === "h") {
        end += 1
        explicit = true
        twentyFour = true
      }
    }
    let meridiem: "am" | "pm" | undefined
    const m1 = this.lower(end)
    if (m1 === "am" || m1 === "pm") {
      meridiem = m1
      end += 1
    } else if ((m1 === "a" || m1 === "p") && this.lower(end + 1) === "." && this.lower(end + 2) === "m") {
      meridiem = m1 === "a" ? "am" : "pm"
      end += this.lower(end + 3) === "." ? 4 : 3
    } else if (m1 === "o'clock") {
      end += 1
      explicit = true
    }
    if (hour > 24 || minute > 59) return undefined
    if (meridiem !== undefined) {
      if (hour < 1 || hour > 12) return undefined
      const h = meridiem === "am" ? hour % 12 : (hour % 12) + 12
      const text = this.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
      return { end, time: { start: h * 60 + minute, ambiguous: false, text } }
    }
    if (!explicit && !bare) return undefined
    // A bare number followed by a noun is a count ("at 2 restaurants"), not a time.
    if (
      !explicit && this.tokens[end]?.kind === "word" &&
      ![
        "in",
        "on",
        "tomorrow",
        "today",
        "tonight",
        "and",
        "or",
        "please",
        "for",
        "with",
        "to",
        "until",
        "till",
        "the",
        "this",
        "next",
        "at"
      ].includes(this.lower(end)) && weekdays[this.lower(end)] === undefined && !dayWords.has(this.lower(end))
    ) {
      return undefined
    }
    if (!explicit && this.tokens[end]?.kind === "sym" && ["%", "$", "€", "£", "/"].includes(this.tokens[end]!.text)) {
      return undefined
    }
    if (hour === 24 && minute > 0) return undefined
    const text = this.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
    const ambiguous = !twentyFour && hour >= 1 && hour <= 12 && hour !== 12
    return { end, time: { start: hour * 60 + minute, ambiguous: ambiguous && hour < 12, text } }
  }

  /** Optional "in the morning/evening" after a time. */
  timeHint(i: number): { end: number; hint: Hint } | undefined {
    if (this.lower(i) === "in" && this.lower(i + 1) === "the") {
      const part = this.lower(i + 2)
      if (part === "morning") return { end: i + 3, hint: "am" }
      if (part === "evening" || part === "afternoon" || part === "night") return { end: i + 3, hint: "pm" }
    }
    if (this.lower(i) === "at" && this.lower(i + 1) === "night") return { end: i + 2, hint: "pm" }
    return undefined
  }

  /** A day and a time in either order, or one of them. */
  readMoment(i: number, bare: boolean): { end: number; moment: Moment } | undefined {
    const day = this.readDay(i)
    if (day !== undefined) {
      let k = day.end
      if ([",", "at", "@", "around", "from", "between", "by", "before"].includes(this.lower(k))) k++
      if (this.lower(k) === "at" || this.lower(k) === "around") k++
      const time = this.readTime(k, k > day.end)
      if (time !== undefined) {
        const hint = this.timeHint(time.end)
        const end = hint?.end ?? time.end
        const h = hint?.hint ?? day.hint
        const text = this.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
        return {
          end,
          moment: h === undefined
            ? { day: day.day, time: time.time, text }
            : { day: day.day, time: time.time, hint: h, text }
        }
      }
      return {
        end: day.end,
        moment: day.hint === undefined
          ? { day: day.day, text: day.text }
          : { day: day.day, hint: day.hint, text: day.text }
      }
    }
    const time = this.readTime(i, bare)
    if (time === undefined) return undefined
    let k = time.end
    const hint = this.timeHint(k)
    if (hint !== undefined) k = hint.end
    let dayAt = k
    if ([",", "on"].includes(this.lower(dayAt))) dayAt++
    const after = this.readDay(dayAt)
    const end = after?.end ?? k
    const h = hint?.hint ?? after?.hint
    const text = this.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
    const moment: Moment = after === undefined ? { time: time.time, text } : { day: after.day, time: time.time, text }
    return { end, moment: h === undefined ? moment : { ...moment, hint: h } }
  }

  /** A count of time units at i ("3 days", "a week", "two hours"). */
  readDuration(
    i: number
  ): { end: number; count: number; unit: "minute" | "hour" | "day" | "week" | "month" } | undefined {
    const w = this.lower(i)
    let count: number | undefined
    let k = i + 1
    if (w === "a" || w === "an" || w === "one") count = 1
    else if (this.tokens[i]?.kind === "num" && /^\d{1,5}$/.test(w)) count = Number(w)
    else count = wordNumber(w)
    if (w === "a" && this.lower(k) === "couple" && this.lower(k + 1) === "of") {
      count = 2
      k += 2
    }
    if (count === undefined) return undefined
    const unit = timeUnits[this.lower(k)]
    if (unit === undefined) return undefined
    const fortnight = this.lower(k) === "fortnight"
    return { end: k + 1, count: fortnight ? count * 2 : count, unit }
  }

  readWhen(i: number): number | undefined {
    const w = this.lower(i)
    // within 3 days, in 20 minutes, in 2 weeks
    if (w === "within" || w === "in") {
      const duration = this.readDuration(i + 1)
      if (duration !== undefined) {
        const { count, unit } = duration
        if (count > 36_500) {
          this.out.whens.push({
            cue: "on",
            from: { day: () => ({ problem: "unreadable", what: "that date" }), text: "" }
          })
          return duration.end
        }
        const text = this.tokens.slice(i, duration.end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
        if (unit === "minute" || unit === "hour") {
          const ms = count * (unit === "minute" ? 60_000 : 3_600_000)
          this.out.whens.push({
            cue: w === "within" ? "by" : "on",
            from: { text },
            exactMs: (clock) => clock.nowMs + ms
          })
          return duration.end
        }
        const shift = (today: number) =>
          unit === "month" ? addMonths(today, count) : today + count * (unit === "week" ? 7 : 1)
        if (w === "within") {
          // Calendar days keep the wall-clock time, across a DST change too.
          this.out.whens.push({ cue: "by", from: { day: (clock) => single(shift(clock.today)), time: nowTime, text } })
          return duration.end
        }
        this.out.whens.push({ cue: "on", from: { day: (clock) => single(shift(clock.today)), text } })
        return duration.end
      }
    }

    let cue: Cue = "on"
    let k = i
    if (["by", "until", "till", "til", "latest"].includes(w)) {
      cue = "by"
      k++
    } else if (w === "before") {
      cue = "before"
      k++
    } else if ((w === "no" || w === "not") && this.lower(i + 1) === "later" && this.lower(i + 2) === "than") {
      cue = "by"
      k += 3
    }
    const range = ["from", "between"].includes(w)
    if (range) k++
    const timeWords = ["at", "@", "around", "about", "approx", "approximately"]
    const bare = cue !== "on" || range || timeWords.includes(w)
    if (timeWords.includes(w)) k++
    const first = this.readMoment(k, bare)
    if (first === undefined) return undefined
    let end = first.end
    let to: Moment | undefined
    const joiner = this.lower(end)
    if (
      ["to", "until", "till", "through", "thru", "-", "–"].includes(joiner) || (joiner === "and" && w === "between")
    ) {
      const second = this.readMoment(end + 1, true)
      if (second !== undefined) {
        to = second.moment
        end = second.end
      }
    }
    const reading: WhenReading = to === undefined ? { cue, from: first.moment } : { cue: "on", from: first.moment, to }
    this.out.whens.push(reading)
    return end
  }

  // ---- counts ------------------------------------------------------------------------------------

  readCount(i: number): { end: number; count: number | "too-large" } | undefined {
    const w = this.lower(i)
    const token = this.tokens[i]
    if (token === undefined) return undefined
    if (w === "half" && this.lower(i + 1) === "a" && this.lower(i + 2) === "dozen") return { end: i + 3, count: 6 }
    if ((w === "a" || w === "one") && this.lower(i + 1) === "dozen") return { end: i + 2, count: 12 }
    if ((w === "a" || w === "one") && ["couple", "pair"].includes(this.lower(i + 1)) && this.lower(i + 2) === "of") {
      return { end: i + 3, count: 2 }
    }
    let count: number | "too-large" | undefined
    if (token.kind === "num") {
      if (
        this.attached(i) && ["$", "€", "£", "¥", ".", ":", "/", "-", "#", "+"].includes(this.tokens[i - 1]?.text ?? "")
      ) {
        return undefined
      }
      const parsed = parseNumber(token.text)
      if (parsed === undefined || parsed === "ambiguous" || parsed.frac !== "") return undefined
      const n = Number(parsed.int)
      count = Number.isSafeInteger(n) ? n : "too-large"
    } else {
      count = wordNumber(w)
    }
    if (count === undefined || count === 0) return undefined
    let end = i + 1
    if (this.lower(end) === "dozen" && typeof count === "number") {
      count = count * 12
      end++
    }
    return { end, count }
  }

  readQuantity(i: number): number | undefined {
    const w = this.lower(i)
    // "table for 4", "for 4 people", "party of 6"
    if ((w === "for" || (w === "of" && this.lower(i - 1) === "party")) && this.tokens[i + 1] !== undefined) {
      const count = this.readDay(i + 1) === undefined && this.readTime(i + 1, false) === undefined ?
        this.readCount(i + 1) :
        undefined
      if (count !== undefined) {
        const next = this.lower(count.end)
        if (peopleWords.has(next)) {
          this.out.quantities.push({ count: count.count, unit: "people" })
          return count.end + 1
        }
        const unitWord = this.tokens[count.end]
        if (
          unitWord === undefined || unitWord.kind !== "word" ||
          ["at", "on", "in", "tomorrow", "today", "tonight", "and", "please", "next", "this", "from", "by", "near"]
            .includes(
              next
            ) ||
          weekdays[next] !== undefined
        ) {
          const after = this.tokens[count.end]
          if (after?.kind === "sym" && ![",", ".", "!", "?", ")", ";"].includes(after.text)) return undefined
          this.out.quantities.push({ count: count.count, unit: "people" })
          return count.end
        }
        return this.quantityWithUnit(count.end, count.count)
      }
    }
    const count = this.readCount(i)
    if (count === undefined) return undefined
    if (this.tokens[i]?.kind === "word" && !["a", "half", "one"].includes(w) && wordNumber(w) === undefined) {
      return undefined
    }
    return this.quantityWithUnit(count.end, count.count)
  }

  quantityWithUnit(k: number, count: number | "too-large"): number | undefined {
    let unitAt = k
    if (this.lower(unitAt) === "x" && this.attached(unitAt)) unitAt++
    const first = this.tokens[unitAt]
    if (
      first === undefined || first.kind !== "word" || isCapitalised(first) && first.text !== first.text.toUpperCase()
    ) {
      return undefined
    }
    if (
      notUnits.has(first.lower) || timeUnits[first.lower] !== undefined && this.lower(k - 2) !== "for" ||
      months[first.lower] !== undefined || currencyWords[first.lower] !== undefined || lowerCodes.has(first.lower) ||
      weekdays[first.lower] !== undefined || first.text === first.text.toUpperCase() && first.text.length > 1
    ) {
      return undefined
    }
    let end = unitAt + 1
    let unit = first.lower
    if (unitAdjectives.has(unit) && this.tokens[end]?.kind === "word" && !notUnits.has(this.lower(end))) {
      unit = `${unit} ${this.lower(end)}`
      end++
    }
    if (containerWords.has(unit) && this.lower(end) === "of" && this.tokens[end + 1]?.kind === "word") {
      unit = `${unit} of ${this.lower(end + 1)}`
      end += 2
      if (
        unitAdjectives.has(this.lower(end - 1)) && this.tokens[end]?.kind === "word" && !notUnits.has(this.lower(end))
      ) {
        unit = `${unit} ${this.lower(end)}`
        end++
      }
    }
    if (peopleWords.has(unit)) unit = "people"
    if (Array.from(unit).length > unitMaxLength) return undefined
    this.out.quantities.push({ count, unit })
    return end
  }

  // ---- places and zones --------------------------------------------------------------------------

  /** The longest city (up to 4 words) named at i: its index after and entry. */
  cityAt(i: number): { end: number; name: string; zone: string } | undefined {
    const { cities } = getGazetteer()
    for (let n = 4; n >= 1; n--) {
      const words = this.tokens.slice(i, i + n)
      if (words.length < n || words.some((t) => t.kind !== "word")) continue
      const key = stripAccents(words.map((t) => t.lower).join(" "))
      const city = cities.get(key)
      if (city !== undefined) return { end: i + n, ...city }
    }
    return undefined
  }

  countryAt(i: number): { end: number; currency: string } | undefined {
    for (let n = 3; n >= 1; n--) {
      const words = this.tokens.slice(i, i + n)
      if (words.length < n || words.some((t) => t.kind !== "word")) continue
      const key = words.map((t) => t.lower).join(" ")
      // "us" the pronoun is not the country; "US" is.
      if (key === "us" || key === "america" && this.lower(i - 1) === "south") continue
      const currency = countryCurrencies[key]
      if (currency !== undefined) return { end: i + n, currency }
    }
    if (this.tokens[i]?.text === "US" || this.tokens[i]?.text === "USA") return { end: i + 1, currency: "USD" }
    return undefined
  }

  readPlace(i: number): number | undefined {
    const w = this.lower(i)
    let k = i + 1
    let preposition = w
    if ((w === "close" || w === "next") && this.lower(i + 1) === "to") {
      preposition = "near"
      k = i + 2
    } else if (!placePrepositions.has(w)) {
      return undefined
    }
    const start = k
    let the = false
    if (this.lower(k) === "the") {
      the = true
      k++
    }
    const parts: Array<string> = []
    let end = k
    let zone: string | undefined
    let currency: string | undefined
    // A known city or country, whatever its casing.
    const city = this.cityAt(k)
    const country = this.countryAt(k)
    if (city !== undefined && (city.end >= (country?.end ?? 0))) {
      zone = city.zone
      currency = zoneCurrency(city.zone)
      parts.push(
        isCapitalised(this.tokens[k]) ? this.tokens.slice(k, city.end).map((t) => t.text).join(" ") : city.name
      )
      end = city.end
    } else if (country !== undefined) {
      currency = country.currency
      parts.push(
        this.tokens.slice(k, country.end).map((t) =>
          isCapitalised(t) || t.kind !== "word" ? t.text : t.text[0]!.toUpperCase() + t.text.slice(1)
        ).join(" ")
      )
      end = country.end
    }
    // Then capitalised words, connectors between them, a house number before them, place nouns after.
    let n = end
    const maxWords = 8
    while (n < this.tokens.length && parts.length < maxWords) {
      const token = this.tokens[n]!
      const lower = token.lower
      if (
        isCapitalised(token) && !notPlaces.has(lower) && months[lower] === undefined && weekdays[lower] === undefined &&
        !(token.text.length === 3 && currencyCodes.has(token.text))
      ) {
        parts.push(token.text)
        n++
        continue
      }
      const nextText = this.tokens[n + 1]?.text ?? ""
      if (
        parts.length === 0 && token.kind === "num" && /^\d{1,5}[a-z]?$/i.test(token.text) &&
        isCapitalised(this.tokens[n + 1]) && nextText !== nextText.toUpperCase() && !notPlaces.has(this.lower(n + 1)) &&
        months[this.lower(n + 1)] === undefined && weekdays[this.lower(n + 1)] === undefined
      ) {
        parts.push(token.text)
        n++
        continue
      }
      // Rua Augusta 10
      if (
        parts.length > 0 && token.kind === "num" && /^\d{1,5}[a-z]?$/i.test(token.text) &&
        (this.tokens[n + 1] === undefined || [",", ".", ";", "to"].includes(this.lower(n + 1))) &&
        this.readDay(n) === undefined &&
        this.readTime(n, false) === undefined
      ) {
        parts.push(token.text)
        n++
        continue
      }
      if (parts.length > 0 && placeConnectors.has(lower) && isCapitalised(this.tokens[n + 1])) {
        parts.push(token.text)
        n++
        continue
      }
      if (
        parts.length > 0 && token.text === "," && isCapitalised(this.tokens[n + 1]) &&
        !notPlaces.has(this.lower(n + 1)) && months[this.lower(n + 1)] === undefined &&
        weekdays[this.lower(n + 1)] === undefined
      ) {
        parts[parts.length - 1] += ","
        n++
        continue
      }
      if ((parts.length > 0 || the) && placeNouns.has(lower) && token.kind === "word") {
        parts.push(token.text)
        n++
        continue
      }
      break
    }
    end = n
    if (parts.length === 0) return undefined
    // "the airport" needs its noun; "the Ritz" its capital.
    if (parts[parts.length - 1]!.endsWith(",")) parts[parts.length - 1] = parts[parts.length - 1]!.slice(0, -1)
    if (zone === undefined) {
      for (let c = start; c < end; c++) {
        const inner = this.cityAt(c)
        if (inner !== undefined && isCapitalised(this.tokens[c])) {
          zone = inner.zone
          currency = zoneCurrency(inner.zone)
          break
        }
        const innerCountry = this.countryAt(c)
        if (innerCountry !== undefined && isCapitalised(this.tokens[c])) currency ??= innerCountry.currency
      }
    }
    const name = the ? `the ${parts.join(" ")}` : parts.join(" ")
    const place = keptPrepositions.has(preposition) ? `${preposition} ${name}` : name
    const clipped = Array.from(place).slice(0, placeMaxLength).join("").trim()
    this.out.places.push({ place: clipped, zone, currency })
    return end
  }

  /** An IANA name or "UTC"/"GMT", or "<City> time". */
  readZone(i: number): number | undefined {
    const token = this.tokens[i]
    if (token === undefined || token.kind !== "word") return undefined
    const { zones } = getGazetteer()
    // Europe/Lisbon, America/Argentina/Buenos_Aires
    let k = i
    let name = token.text
    while (
      this.lower(k + 1) === "/" && this.attached(k + 1) && this.tokens[k + 2]?.kind === "word" && this.attached(k + 2)
    ) {
      name += "/" + this.tokens[k + 2]!.text
      k += 2
      while (this.lower(k + 1) === "_" && this.attached(k + 1) && this.tokens[k + 2]?.kind === "word") {
        name += "_" + this.tokens[k + 2]!.text
        k += 2
      }
    }
    const known = zones.get(name.toLowerCase())
    if (known !== undefined && (name.includes("/") || ["UTC", "GMT"].includes(token.text))) {
      this.out.zones.push(known)
      return k + 1
    }
    const timeFollows = [1, 2, 3, 4].some((n) => this.lower(i + n) === "time")
    const city = timeFollows ? this.cityAt(i) : undefined
    if (city !== undefined && this.lower(city.end) === "time") {
      this.out.zones.push(city.zone)
      return city.end + 1
    }
    return undefined
  }
}

const nowTime: TimeSpec = { start: -1, ambiguous: false, text: "now" }

// ---------------------------------------------------------------------------------------------------
// Objective.

type Strength = "strong" | "weak"
const kindWords: ReadonlyArray<readonly [ObjectiveKind, Strength, ReadonlyArray<string>]> = [
  ["transport", "strong", [
    "flight",
    "flights",
    "fly",
    "flying",
    "plane",
    "airline",
    "airfare",
    "train",
    "trains",
    "rail",
    "railway",
    "taxi",
    "taxis",
    "cab",
    "uber",
    "lyft",
    "ride",
    "bus",
    "coach",
    "ferry",
    "shuttle",
    "flght",
    "fligth",
    "fligt",
    "flihgt",
    "trian",
    "taxy",
    "chauffeur",
    "limo",
    "limousine",
    "boarding",
    "layover",
    "round-trip",
    "roundtrip",
    "one-way",
    "tgv",
    "eurostar",
    "amtrak",
    "voo",
    "vuelo",
    "vol",
    "flug",
    "comboio",
    "tren",
    "zug"
  ]],
  ["transport", "weak", ["transfer", "trip", "drive", "pickup", "pick-up", "lift", "return", "travel"]],
  ["reservation", "strong", [
    "table",
    "restaurant",
    "restaurants",
    "dinner",
    "lunch",
    "brunch",
    "hotel",
    "hotels",
    "hostel",
    "airbnb",
    "accommodation",
    "accomodation",
    "villa",
    "resort",
    "campsite",
    "resturant",
    "restaraunt",
    "restuarant",
    "restarant",
    "resto",
    "reservation",
    "reservations",
    "reservaton",
    "reservasion",
    "hotell",
    "tabel",
    "bnb",
    "b&b",
    "motel",
    "inn",
    "rental",
    "suite",
    "mesa",
    "restaurante",
    "jantar",
    "cena",
    "dîner",
    "hôtel",
    "quarto",
    "habitación"
  ]],
  ["reservation", "weak", [
    "book",
    "booking",
    "reserve",
    "rent",
    "stay",
    "room",
    "rooms",
    "nights",
    "night",
    "reservar",
    "réserver",
    "reservieren"
  ]],
  ["appointment", "strong", [
    "appointment",
    "appointments",
    "appt",
    "apointment",
    "appointmnet",
    "dentist",
    "doctor",
    "gp",
    "physio",
    "physiotherapist",
    "haircut",
    "barber",
    "hairdresser",
    "salon",
    "manicure",
    "pedicure",
    "massage",
    "checkup",
    "check-up",
    "vet",
    "therapist",
    "consultation",
    "optician",
    "vaccination",
    "vaccine",
    "dermatologist",
    "nails",
    "spa",
    "facial",
    "interview"
  ]],
  ["service", "strong", [
    "repair",
    "repairs",
    "repaired",
    "plumber",
    "electrician",
    "cleaner",
    "cleaners",
    "cleaning",
    "installation",
    "install",
    "installed",
    "mechanic",
    "locksmith",
    "movers",
    "removals",
    "handyman",
    "painter",
    "gardener",
    "babysitter",
    "nanny",
    "dog-walker",
    "tutor",
    "servicing",
    "leak",
    "leaking",
    "broken",
    "unblock",
    "replace",
    "replacement",
    "assemble",
    "assembly",
    "fixed",
    "repiar",
    "plummer"
  ]],
  ["service", "weak", ["fix", "fixing", "clean", "service", "help"]],
  ["purchase", "strong", [
    "buy",
    "buying",
    "purchase",
    "groceries",
    "grocery",
    "gift",
    "gifts",
    "present",
    "flowers",
    "bouquet",
    "shopping",
    "tickets",
    "ticket",
    "concert",
    "pizza",
    "takeaway",
    "takeout",
    "groceris",
    "eggs",
    "milk",
    "bread",
    "wine",
    "laptop",
    "phone",
    "shoes",
    "book",
    "books"
  ]],
  ["purchase", "weak", ["order", "get", "shop", "pick", "find", "comprar", "acheter", "kaufen", "compra"]],
  ["delivery", "strong", [
    "courier",
    "parcel",
    "parcels",
    "package",
    "packages",
    "shipping",
    "ship",
    "shipment",
    "post",
    "mail"
  ]],
  ["delivery", "weak", ["send", "deliver", "delivery", "delivered", "move", "moving"]]
]

/** Words that belong to a place or a thing of another kind ("train station", "ticket" for a flight). */
const kindAfter: Record<string, ReadonlyArray<string>> = {
  train: ["station"],
  bus: ["stop", "station"],
  taxi: ["rank"],
  book: [],
  table: ["tennis"]
}

const bookDeterminers = new Set([
  "a",
  "the",
  "this",
  "that",
  "my",
  "his",
  "her",
  "their",
  "some",
  "new",
  "good",
  "cook",
  "children's",
  "kids",
  "old",
  "rare",
  "signed"
])

let kindIndex: Map<string, readonly [ObjectiveKind, Strength]> | undefined

const getKindIndex = () => {
  if (kindIndex !== undefined) return kindIndex
  kindIndex = new Map()
  for (const [kind, strength, words] of kindWords) {
    for (const word of words) {
      if (!kindIndex.has(`${word}/${strength}`)) kindIndex.set(`${word}/${strength}`, [kind, strength])
    }
  }
  return kindIndex
}

const readKind = (tokens: ReadonlyArray<Token>): ObjectiveKind => {
  const index = getKindIndex()
  let weak: ObjectiveKind | undefined
  for (let i = 0; i < tokens.length; i++) {
    const w = tokens[i]!.lower
    if (tokens[i]!.kind !== "word") continue
    const blocked = kindAfter[w]
    if (blocked !== undefined && blocked.includes(tokens[i + 1]?.lower ?? "")) continue
    // "book" is a noun after a determiner or a number ("a book", "2 books") and a verb elsewhere.
    if (w === "book" || w === "books") {
      const before = tokens[i - 1]
      const noun = before !== undefined &&
        (before.kind === "num" || wordNumber(before.lower) !== undefined || bookDeterminers.has(before.lower))
      if (!noun) {
        weak ??= "reservation"
        continue
      }
    }
    const strong = index.get(`${w}/strong`)
    if (strong !== undefined) {
      // "a plane ticket": the ticket is the transport's.
      if (strong[0] === "purchase" && ["ticket", "tickets"].includes(w) && weak === undefined) {
        const next = tokens.slice(i + 1, i + 5).map((t) => t.lower)
        if (next.some((n) => index.get(`${n}/strong`)?.[0] === "transport")) continue
      }
      return strong[0]
    }
    const weakKind = index.get(`${w}/weak`)
    if (weakKind !== undefined) weak ??= weakKind[0]
  }
  return weak ?? "other"
}

const collapse = (s: string) => s.replace(/\s+/gu, " ").trim()

const summarise = (text: string): string => {
  const chars = Array.from(collapse(text.toWellFormed()))
  if (chars.length <= summaryMaxLength) return chars.join("")
  const cut = chars.slice(0, summaryMaxLength - 1).join("")
  const lastSpace = cut.lastIndexOf(" ")
  return `${(lastSpace > summaryMaxLength / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`
}

// ---------------------------------------------------------------------------------------------------
// From readings to constraints and questions.

const questionOrder: ReadonlyArray<QuestionAbout> = [
  "objective",
  "budget.currency",
  "budget",
  "budget.amount",
  "timezone",
  "time",
  "date",
  "quantity.people",
  "quantity"
]

const needsDate: ReadonlySet<ObjectiveKind> = new Set(["reservation", "appointment", "transport"])
const partyWords = new Set([
  "table",
  "restaurant",
  "dinner",
  "lunch",
  "brunch",
  "resturant",
  "restaraunt",
  "restuarant",
  "tabel"
])

const noneAnswers = new Set([
  "no",
  "none",
  "nothing",
  "no budget",
  "no limit",
  "any",
  "anytime",
  "any time",
  "whenever",
  "flexible",
  "doesn't matter",
  "does not matter",
  "n/a",
  "skip"
])

const isNoneAnswer = (answer: string) => noneAnswers.has(collapse(answer.toLowerCase()).replace(/[.!]+$/, ""))

const quoted = (s: string) => {
  const chars = Array.from(collapse(s.toWellFormed()))
  return `"${chars.length > 60 ? `${chars.slice(0, 59).join("")}…` : chars.join("")}"`
}

const currencyName = (code: string) => {
  try {
    return new Intl.DisplayNames(["en"], { type: "currency" }).of(code) ?? code
  } catch {
    return code
  }
}

interface Budget {
  readonly amount: string
  readonly currency: string
}

const sameBudget = (a: Budget, b: Budget) => a.amount === b.amount && a.currency === b.currency

const compareDecimalStrings = (a: string, b: string): number => {
  const [ai = "", af = ""] = a.split(".")
  const [bi = "", bf = ""] = b.split(".")
  if (ai.length !== bi.length) return ai.length - bi.length
  if (ai !== bi) return ai < bi ? -1 : 1
  const width = Math.max(af.length, bf.length)
  const x = af.padEnd(width, "0")
  const y = bf.padEnd(width, "0")
  return x === y ? 0 : x < y ? -1 : 1
}

const latestAnswers = (answers: ReadonlyArray<Answer>): Map<string, string> => {
  const latest = new Map<string, string>()
  for (const answer of answers) latest.set(answer.questionId, answer.answer)
  return latest
}

const id = (about: QuestionAbout) => questionId(about)

class Findings {
  readonly questions = new Map<QuestionAbout, string>()
  readonly constraints: Array<ConstraintInput> = []

  ask(about: QuestionAbout, text: string, unreadAnswer: string | undefined) {
    if (this.questions.has(about)) return
    const full = unreadAnswer === undefined ? text : `${text} (${quoted(unreadAnswer)} could not be read.)`
    this.questions.set(about, Array.from(full).slice(0, 500).join(""))
  }
}

/** Which currency a mention means, given the currencies of the places and zones the request involves. */
const resolveCurrency = (mention: CurrencyMention, context: ReadonlySet<string>): string | ReadonlyArray<string> => {
  if ("code" in mention) return mention.code
  const members = families[mention.family]
  const local = members.filter((code) => context.has(code))
  if (mention.family === "dollar") {
    const others = local.filter((code) => code !== "USD")
    return others.length === 0 ? "USD" : ["USD", ...others]
  }
  if (local.length === 1) return local[0]!
  return local.length > 1 ? local : members
}

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

const dedupe = <A>(values: ReadonlyArray<A>): Array<A> => [...new Set(values)]

const dedupeConstraints = (constraints: ReadonlyArray<ConstraintInput>): Array<ConstraintInput> => {
  const seen = new Set<string>()
  return constraints.filter((c) => {
    const key = JSON.stringify(c)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

const canonicalZone = (zone: string): string => {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone
  } catch {
    return zone
  }
}

const sameZone = (a: string, b: string) => canonicalZone(a) === canonicalZone(b)

const readZoneAnswer = (answer: string): string | undefined => {
  const trimmed = collapse(answer.toWellFormed().normalize("NFKC"))
  if (isTimeZoneName(trimmed)) return trimmed
  const { zones } = getGazetteer()
  const known = zones.get(trimmed.toLowerCase())
  if (known !== undefined) return known
  const reader = new Reader(trimmed)
  const read = reader.read()
  if (read.zones.length === 1) return read.zones[0]
  for (let i = 0; i < reader.tokens.length; i++) {
    const city = reader.cityAt(i)
    if (city !== undefined) return city.zone
  }
  return undefined
}

const readBudget = (
  reading: Reading,
  caller: ReadonlyArray<ConstraintInput>,
  answers: ReadonlyMap<string, string>,
  context: ReadonlySet<string>,
  result: Findings
): void => {
  const callerBudgets = caller.filter((c): c is Extract<ConstraintInput, { type: "budget" }> => c.type === "budget")
    .map((c) => c.max)
  const currencyAnswer = answers.get(id("budget.currency"))
  const budgetAnswer = answers.get(id("budget")) ?? answers.get(id("budget.amount"))
  const answeredBudget = answers.has(id("budget")) ? id("budget") : id("budget.amount")

  const answeredCurrency = currencyAnswer === undefined ? undefined : readCurrencyAnswer(currencyAnswer, context)

  // An answer naming the budget replaces what the words said.
  if (budgetAnswer !== undefined) {
    if (isNoneAnswer(budgetAnswer)) return
    const parsed = new Reader(budgetAnswer.toWellFormed().normalize("NFKC")).read()
    const bare = readBareAmount(budgetAnswer)
    const money = parsed.money.length > 0 ? parsed.money : bare === undefined ? [] : [bare]
    const candidates = dedupe(money.map((m) => JSON.stringify(m)))
    if (candidates.length === 1 && money[0]!.amount !== "ambiguous" && !money[0]!.perUnit) {
      const m = money[0]!
      const textCurrencies = dedupe(reading.money.flatMap((r) => {
        if (r.currency === undefined) return []
        const c = resolveCurrency(r.currency, context)
        return typeof c === "string" ? [c] : []
      }))
      const mention = m.currency ?? parsed.currencies[0]
      const currency = mention !== undefined ?
        resolveCurrency(mention, context) :
        answeredCurrency ?? (textCurrencies.length === 1 ? textCurrencies[0] : undefined)
      emitBudget(m.amount as Decimal, currency, callerBudgets, true, result, currencyAnswer, m.text)
      return
    }
    askBudget(reading, result, budgetAnswer, answeredBudget === id("budget") ? "budget" : "budget.amount")
    return
  }

  if (reading.money.length === 0) return
  if (reading.money.some((m) => m.amount === "ambiguous" || m.perUnit)) {
    if (callerBudgets.length > 0) return
    const m = reading.money.find((m) => m.amount === "ambiguous" || m.perUnit)!
    result.ask(
      "budget.amount",
      m.perUnit ?
        `The request gives ${m.text}: what is the most to spend in total, with its currency?` :
        `Is ${m.text} a whole amount or a decimal one? Please write the most to spend with its currency, for example "1200 EUR".`,
      undefined
    )
    return
  }
  const readings = reading.money.map((m) => {
    const mention = m.currency ?? (reading.currencies.length > 0 ? reading.currencies[0] : undefined)
    const resolved = mention === undefined ? undefined : resolveCurrency(mention, context)
    return { m, currency: resolved }
  })
  const distinct = dedupe(
    readings.map((r) =>
      `${formatDecimal(r.m.amount as Decimal)} ${
        typeof r.currency === "string" ? r.currency : JSON.stringify(r.currency ?? null)
      }`
    )
  )
  if (distinct.length > 1) {
    if (callerBudgets.length > 0 && readings.every((r) => r.currency === undefined)) return
    result.ask(
      "budget",
      `The request names more than one budget (${
        readings.map((r) => r.m.text).filter((t, i, all) => all.indexOf(t) === i).join(", ")
      }): what is the most to spend, with its currency?`,
      undefined
    )
    return
  }
  const only = readings[0]!
  emitBudget(
    only.m.amount as Decimal,
    answeredCurrency ?? only.currency,
    callerBudgets,
    false,
    result,
    currencyAnswer,
    only.m.text
  )
}

const formatDecimal = (d: Decimal) => d.frac === "" ? d.int : `${d.int}.${d.frac}`

const readBareAmount = (answer: string): MoneyReading | undefined => {
  const trimmed = collapse(answer.toWellFormed().normalize("NFKC"))
  const reader = new Reader(trimmed)
  const number = reader.readAmountNumber(0)
  if (number === undefined) return undefined
  const currency = reader.readCurrency(number.end)
  const end = currency?.end ?? number.end
  if (end !== reader.tokens.length) return undefined
  return { amount: number.amount, currency: currency?.currency, perUnit: false, text: trimmed }
}

const readCurrencyAnswer = (answer: string, context: ReadonlySet<string>): string | undefined => {
  const trimmed = collapse(answer.toWellFormed().normalize("NFKC"))
  if (/^[A-Za-z]{3}$/.test(trimmed) && currencyCodes.has(trimmed.toUpperCase())) return trimmed.toUpperCase()
  const reader = new Reader(trimmed)
  for (let i = 0; i < reader.tokens.length; i++) {
    const found = reader.readCurrency(i)
    if (found !== undefined) {
      const resolved = resolveCurrency(found.currency, context)
      // "dollars" to "US or Canadian dollars?" settles nothing.
      if (
        typeof resolved === "string" &&
        ("code" in found.currency ||
          !("family" in found.currency && found.currency.family === "dollar" && context.size > 0 &&
            [...context].some((c) => c !== "USD" && families.dollar.includes(c))))
      ) {
        return resolved
      }
    }
    const adjective = currencyAdjectives[reader.lower(i)]
    if (adjective !== undefined) return adjective
  }
  return undefined
}

const emitBudget = (
  amount: Decimal,
  currency: string | ReadonlyArray<string> | undefined,
  callerBudgets: ReadonlyArray<Budget>,
  answered: boolean,
  result: Findings,
  currencyAnswer: string | undefined,
  text: string
): void => {
  if (currency === undefined || typeof currency !== "string") {
    if (callerBudgets.length > 0) return
    const options = typeof currency === "string" || currency === undefined ? undefined : currency
    result.ask(
      "budget.currency",
      options === undefined ?
        `Which currency is the budget of ${text} in?` :
        `Which currency is the budget of ${text} in: ${options.map((c) => `${currencyName(c)} (${c})`).join(" or ")}?`,
      currencyAnswer
    )
    return
  }
  const formatted = formatAmount(amount, currency)
  if (formatted === "too-large" || formatted === "too-precise") {
    if (callerBudgets.length > 0 && !answered) return
    result.ask("budget.amount", `${text} cannot be a budget: what is the most to spend, with its currency?`, undefined)
    return
  }
  const budget = { amount: formatted, currency }
  if (callerBudgets.some((c) => sameBudget(c, budget))) return
  if (!answered && callerBudgets.length > 0) {
    // The caller's budget covers the words when it is no looser than them; otherwise the two disagree.
    const covered = callerBudgets.some((c) =>
      c.currency === currency && compareDecimalStrings(c.amount, formatted) <= 0
    )
    if (!covered) {
      result.ask(
        "budget",
        `The request says at most ${formatted} ${currency} but the budget given is ${
          callerBudgets.map((c) => `${c.amount} ${c.currency}`).join(", ")
        }: what is the most to spend?`,
        undefined
      )
    }
    return
  }
  result.constraints.push({ type: "budget", max: budget })
}

const askBudget = (
  reading: Reading,
  result: Findings,
  answer: string,
  about: "budget" | "budget.amount"
) => {
  const texts = dedupe(reading.money.map((m) => m.text))
  result.ask(
    about,
    texts.length > 0 ?
      `What is the most to spend (the request says ${texts.join(", ")}), with its currency?` :
      "What is the most to spend, with its currency?",
    answer
  )
}

const readQuantities = (
  reading: Reading,
  kind: ObjectiveKind,
  tokens: ReadonlyArray<Token>,
  caller: ReadonlyArray<ConstraintInput>,
  answers: ReadonlyMap<string, string>,
  result: Findings
): void => {
  const callerQuantities = caller.filter((c): c is Extract<ConstraintInput, { type: "quantity" }> =>
    c.type === "quantity"
  )
  const byUnit = new Map<string, Array<number | "too-large">>()
  for (const q of reading.quantities) {
    const key = q.unit ?? ""
    byUnit.set(key, [...(byUnit.get(key) ?? []), q.count])
  }

  const peopleAnswer = answers.get(id("quantity.people"))
  if (peopleAnswer !== undefined) {
    const count = readCountAnswer(peopleAnswer)
    if (count !== undefined) byUnit.set("people", [count])
  }
  const quantityAnswer = answers.get(id("quantity"))
  const answeredUnits = new Set<string>(
    peopleAnswer !== undefined && byUnit.get("people")?.length === 1 ? ["people"] : []
  )
  if (quantityAnswer !== undefined) {
    const parsed = new Reader(quantityAnswer.toWellFormed().normalize("NFKC")).read().quantities
    const bare = readCountAnswer(quantityAnswer)
    const conflicting = [...byUnit.entries()].filter(([unit, counts]) => unit !== "people" && dedupe(counts).length > 1)
    if (parsed.length === 1 && parsed[0]!.unit !== undefined) {
      byUnit.set(parsed[0]!.unit, [parsed[0]!.count])
      answeredUnits.add(parsed[0]!.unit)
    } else if (bare !== undefined && conflicting.length > 0) {
      byUnit.set(conflicting[0]![0], [bare])
      answeredUnits.add(conflicting[0]![0])
    }
  }

  for (const [unit, counts] of [...byUnit.entries()].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) {
    const distinct = dedupe(counts)
    const about: QuestionAbout = unit === "people" ? "quantity.people" : "quantity"
    const callerSame = callerQuantities.filter((c) =>
      (c.unit ?? "") === unit || (unit === "people" && c.unit !== undefined && peopleWords.has(c.unit.toLowerCase()))
    )
    const answer = answers.get(id(about))
    if (distinct.length > 1 || distinct[0] === "too-large") {
      if (callerSame.length > 0 && distinct.every((c) => callerSame.some((q) => q.count === c))) continue
      result.ask(
        about,
        unit === "people" ?
          `For how many people? The request says ${distinct.join(" and ")}.` :
          `How many ${unit === "" ? "" : `${unit} `}exactly? The request says ${distinct.join(" and ")}.`.replace(
            "too-large",
            "a number too large"
          ),
        answeredUnits.has(unit) ? undefined : answer
      )
      continue
    }
    const count = distinct[0] as number
    if (callerSame.some((c) => c.count === count)) continue
    if (callerSame.length > 0 && !answeredUnits.has(unit)) {
      result.ask(
        about,
        `The request says ${count}${unit === "" ? "" : ` ${unit}`} but ${callerSame.map((c) => c.count).join(", ")} ${
          unit === "" ? "" : unit
        } was given: how many?`.replace(" was given", " was given").replace("  ", " "),
        undefined
      )
      continue
    }
    result.constraints.push(unit === "" ? { type: "quantity", count } : { type: "quantity", count, unit })
  }

  // A table for how many? A restaurant cannot hold one without the number of people.
  const wantsTable = kind === "reservation" && tokens.some((t) => partyWords.has(t.lower))
  const hasPeople = [...byUnit.keys()].some((u) => u === "people" || partyUnits.has(u)) ||
    callerQuantities.some((c) =>
      c.unit === undefined || peopleWords.has(c.unit.toLowerCase()) || partyUnits.has(c.unit.toLowerCase())
    )
  if (wantsTable && !hasPeople) {
    result.ask("quantity.people", "For how many people?", peopleAnswer)
  }
}

const readCountAnswer = (answer: string): number | "too-large" | undefined => {
  const reader = new Reader(collapse(answer.toWellFormed().normalize("NFKC")))
  const first = reader.tokens.findIndex((t) =>
    t.kind === "num" || wordNumber(t.lower) !== undefined || t.lower === "a" || t.lower === "half"
  )
  if (first < 0) return undefined
  const count = reader.readCount(first)
  if (count === undefined) return undefined
  const rest = reader.tokens.slice(count.end).filter((t) => t.kind !== "sym")
  if (rest.length > 2) return undefined
  return count.count
}

interface ZoneState {
  readonly zone: string | undefined
  readonly zoneFromText: boolean
  readonly zoneConflict: boolean
  readonly callerZone: string | undefined
  readonly explicitZones: ReadonlyArray<string>
}

interface Resolved {
  readonly type: "window" | "deadline"
  readonly start: Instant
  readonly end: Instant
}

const applyHint = (time: TimeSpec, hint: Hint | undefined, globalHints: ReadonlySet<Hint>): TimeSpec | undefined => {
  if (!time.ambiguous) return time
  const h = hint ?? (globalHints.size === 1 ? [...globalHints][0] : undefined)
  const shift = (m: number | undefined, pm: boolean) => m === undefined ? undefined : pm && m < 720 ? m + 720 : m
  if (h === "pm") {
    const end = shift(time.end, true)
    return end === undefined
      ? { ...time, start: time.start + 720, ambiguous: false }
      : { ...time, start: time.start + 720, end, ambiguous: false }
  }
  if (h === "am") return { ...time, ambiguous: false }
  if (h === "lunch") {
    const hour = Math.floor(time.start / 60)
    const pm = hour >= 1 && hour <= 5
    return { ...time, start: pm ? time.start + 720 : time.start, ambiguous: false }
  }
  return undefined
}

/** "pm", "evening", "7pm", "19:30": what an answer to the am/pm question says. */
const readMeridiemAnswer = (
  answer: string
): { readonly hint: "am" | "pm" } | { readonly time: TimeSpec } | undefined => {
  const trimmed = collapse(answer.toWellFormed().normalize("NFKC")).toLowerCase()
  const reader = new Reader(trimmed)
  for (let i = 0; i < reader.tokens.length; i++) {
    const time = reader.readTime(i, true)
    if (time !== undefined && !time.time.ambiguous && time.end - i > 1) return { time: time.time }
  }
  if (/\b(?:pm|p\.m\.|evening|night|afternoon|tonight)\b/.test(trimmed)) return { hint: "pm" }
  if (/\b(?:am|a\.m\.|morning)\b/.test(trimmed)) return { hint: "am" }
  for (let i = 0; i < reader.tokens.length; i++) {
    const time = reader.readTime(i, true)
    if (time !== undefined && !time.time.ambiguous) return { time: time.time }
  }
  return undefined
}

const readDates = (
  reading: Reading,
  kind: ObjectiveKind,
  input: InterpretInput,
  answers: ReadonlyMap<string, string>,
  zones: ZoneState,
  result: Findings
): void => {
  const caller = input.constraints
  const callerWindows = caller.filter((c): c is Extract<ConstraintInput, { type: "window" }> => c.type === "window")
  const callerDeadlines = caller.filter((c): c is Extract<ConstraintInput, { type: "deadline" }> =>
    c.type === "deadline"
  )
  const dateAnswer = answers.get(id("date"))
  const timeAnswer = answers.get(id("time"))
  const zoneAnswer = answers.get(id("timezone"))

  let whens = reading.whens
  let answeredDate = false
  let noDateWanted = false
  let dateAnswerUnread: string | undefined
  if (dateAnswer !== undefined) {
    if (isNoneAnswer(dateAnswer)) {
      whens = []
      noDateWanted = true
      answeredDate = true
    } else {
      const parsed = new Reader(dateAnswer.toWellFormed().normalize("NFKC")).read()
      const own = parsed.whens.length > 0 ? parsed.whens : readBareTime(dateAnswer)
      if (own.length > 0) {
        // "12 March" to a question about "12/03 at 8pm" keeps the 8pm the words gave.
        const textTimes = dedupeBy(
          reading.whens.filter((w) =>
            w.cue === "on" && w.to === undefined && w.exactMs === undefined && w.from.time !== undefined
          ),
          (w) => JSON.stringify(w.from.time)
        )
        const [answered] = own
        whens = own.length === 1 && textTimes.length === 1 && answered!.cue === "on" && answered!.to === undefined &&
            answered!.exactMs === undefined && answered!.from.time === undefined && answered!.from.day !== undefined
          ? [{ ...answered!, from: { ...textTimes[0]!.from, day: answered!.from.day } }]
          : own
        answeredDate = true
        if (parsed.zones.length === 1 && zones.zone === undefined) {
          zones = { ...zones, zone: parsed.zones[0], zoneFromText: true }
        }
      } else {
        dateAnswerUnread = dateAnswer
      }
    }
  }

  // The am/pm question's answer settles every ambiguous time.
  const meridiem = timeAnswer === undefined ? undefined : readMeridiemAnswer(timeAnswer)
  const settle = (moment: Moment): Moment | "ambiguous" => {
    if (moment.time === undefined || !moment.time.ambiguous) return moment
    if (meridiem !== undefined) {
      if ("time" in meridiem) return { ...moment, time: meridiem.time }
      const settled = applyHint(moment.time, meridiem.hint, new Set())
      return settled === undefined ? "ambiguous" : { ...moment, time: settled }
    }
    const settled = applyHint(moment.time, moment.hint, reading.hints)
    return settled === undefined ? "ambiguous" : { ...moment, time: settled }
  }
  const settled: Array<WhenReading> = []
  const ambiguousTimes: Array<string> = []
  for (const when of whens) {
    const from = settle(when.from)
    const to = when.to === undefined ? undefined : settle(when.to)
    if (from === "ambiguous" || to === "ambiguous") {
      ambiguousTimes.push(
        (from === "ambiguous" ? when.from.time?.text : to === "ambiguous" ? when.to?.time?.text : undefined) ?? ""
      )
      continue
    }
    settled.push(to === undefined ? { ...when, from } : { ...when, from, to })
  }
  if (ambiguousTimes.length > 0) {
    const t = ambiguousTimes[0]!
    result.ask("time", `Is ${t} in the morning or in the evening?`, meridiem === undefined ? timeAnswer : undefined)
  }

  // "dinner at 8 ... on Friday": a lone time and a lone day read apart are one moment.
  const plain = (w: WhenReading) => w.cue === "on" && w.to === undefined && w.exactMs === undefined
  const dayOnly = settled.filter((w) => plain(w) && w.from.day !== undefined && w.from.time === undefined)
  const timeOnly = settled.filter((w) => plain(w) && w.from.day === undefined && w.from.time !== undefined)
  if (dayOnly.length === 1 && timeOnly.length === 1) {
    const [day] = dayOnly as [WhenReading]
    const [time] = timeOnly as [WhenReading]
    settled.splice(settled.indexOf(time), 1)
    settled[settled.indexOf(day)] = {
      cue: "on",
      from: { day: day.from.day!, time: time.from.time!, text: `${day.from.text} ${time.from.text}` }
    }
  }

  const usesClock = settled.some((w) =>
    w.exactMs === undefined && (w.from.time !== undefined || w.to?.time !== undefined)
  )
  const usesDays = settled.length > 0

  if (zones.zoneConflict && usesDays) {
    result.ask(
      "timezone",
      `Which time zone should times be read in: ${
        [...(zones.callerZone === undefined ? [] : [zones.callerZone]), ...zones.explicitZones].join(" or ")
      }?`,
      zoneAnswer
    )
    return
  }
  if (zones.zone === undefined && usesClock) {
    result.ask(
      "timezone",
      "Which time zone are the times in? Please name it, for example Europe/Lisbon, or a city.",
      zoneAnswer
    )
    return
  }
  if (zoneAnswer !== undefined && zones.zone === undefined && zones.zoneConflict === false && usesClock) return

  const zone = zones.zone ?? "UTC"
  const clock = makeClock(input.createdAt, zone)
  if (clock === undefined) return

  const resolved: Array<Resolved> = []
  const problems: Array<Problem> = []
  for (const when of settled) {
    const r = resolveWhen(when, clock)
    if (isProblem(r)) problems.push(r)
    else resolved.push(r)
  }

  const windows = narrowWindows(resolved.filter((r) => r.type === "window"))
  const deadlines = dedupeBy(resolved.filter((r) => r.type === "deadline"), (r) => r.start.ms)

  let usedZone = false
  const dateQuestion = (text: string) => result.ask("date", text, dateAnswerUnread)
  if (problems.length > 0) {
    const p = problems[0]!
    dateQuestion(
      p.problem === "past" ?
        `${p.what === "" ? "That date" : `"${p.what}"`} has already passed: when should it be?` :
        p.problem === "ambiguous" ?
        `Which date is meant by "${p.what}"? Please give the day, for example 12 March, and a time if it matters.` :
        `"${p.what}" is not a date: when should it be?`
    )
  } else if (windows === "conflict" || deadlines.length > 1) {
    dateQuestion(
      `The request names more than one time (${
        settled.map((w) => w.from.text + (w.to === undefined ? "" : ` to ${w.to.text}`)).filter((t) => t !== "").join(
          ", "
        )
      }): when should it be?`
    )
  } else {
    const window = windows[0]
    const deadline = deadlines[0]
    if (window !== undefined) {
      const covered = !answeredDate && callerWindows.length > 0
      if (covered) {
        const overlaps = callerWindows.some((c) => overlapsWindow(c, window))
        if (!overlaps) {
          dateQuestion(
            `The request says ${window.start.iso} to ${window.end.iso} but the window given is ${
              callerWindows.map((c) => `${c.start} to ${c.end}`).join(", ")
            }: when should it be?`
          )
        }
      } else if (!callerWindows.some((c) => c.start === window.start.iso && c.end === window.end.iso)) {
        result.constraints.push({ type: "window", start: window.start.iso, end: window.end.iso })
        usedZone = true
      }
    }
    if (deadline !== undefined) {
      const covered = !answeredDate && callerDeadlines.length > 0
      if (covered) {
        const stricter = callerDeadlines.some((c) => instantMs(c.by) <= deadline.start.ms)
        if (!stricter) {
          dateQuestion(
            `The request says by ${deadline.start.iso} but the deadline given is ${
              callerDeadlines.map((c) => c.by).join(", ")
            }: by when?`
          )
        }
      } else if (!callerDeadlines.some((c) => c.by === deadline.start.iso)) {
        result.constraints.push({ type: "deadline", by: deadline.start.iso })
        usedZone = true
      }
    }
  }

  const anyDate = settled.length > 0 || callerWindows.length > 0 || callerDeadlines.length > 0 || noDateWanted
  if (!anyDate && ambiguousTimes.length === 0 && needsDate.has(kind)) {
    dateQuestion(
      kind === "transport" ?
        "When should the journey be? Please give the day, and a time if it matters." :
        kind === "appointment" ?
        "When should the appointment be? Please give the day, and a time if it matters." :
        "For when? Please give the day, and a time if it matters."
    )
  }

  if (
    usedZone && zones.zoneFromText && zones.zone !== undefined && !isUtcZone(zones.zone) &&
    (zones.callerZone === undefined || !sameZone(zones.callerZone, zones.zone))
  ) {
    result.constraints.push({ type: "timezone", zone: zones.zone })
  }
}

const readBareTime = (answer: string): Array<WhenReading> => {
  const reader = new Reader(collapse(answer.toWellFormed().normalize("NFKC")))
  const moment = reader.readMoment(0, true)
  if (moment === undefined || moment.end !== reader.tokens.length) return []
  return [{ cue: "on", from: moment.moment }]
}

const instantMs = (timestamp: string): number => {
  const ms = Date.parse(timestamp)
  return Number.isNaN(ms) ? 0 : ms
}

const overlapsWindow = (c: { readonly start: string; readonly end: string }, w: Resolved) =>
  instantMs(c.start) < w.end.ms && w.start.ms < instantMs(c.end)

const dedupeBy = <A>(values: ReadonlyArray<A>, key: (a: A) => unknown): Array<A> => {
  const seen = new Set<unknown>()
  return values.filter((v) => {
    const k = key(v)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

/** Windows inside one another narrow to the innermost ("this weekend ... Saturday at 7pm"); apart, they conflict. */
const narrowWindows = (windows: ReadonlyArray<Resolved>): Array<Resolved> | "conflict" => {
  const sorted = [...windows].sort((a, b) => (a.end.ms - a.start.ms) - (b.end.ms - b.start.ms))
  const narrowest = sorted[0]
  if (narrowest === undefined) return []
  for (const w of sorted) {
    if (w.start.ms > narrowest.start.ms || w.end.ms < narrowest.end.ms) return "conflict"
  }
  return [narrowest]
}

const resolveWhen = (when: WhenReading, clock: Clock): Resolved | Problem => {
  if (when.exactMs !== undefined) {
    const ms = when.exactMs(clock)
    const minute = Math.floor(ms / 60_000) * 60_000
    const start = exactInstant(clock, when.cue === "by" ? ms : minute)
    const end = exactInstant(clock, minute + 60_000)
    if (start === undefined || end === undefined) return { problem: "unreadable", what: when.from.text }
    return when.cue === "by" ? { type: "deadline", start, end: start } : { type: "window", start, end }
  }
  const from = resolveMoment(when.from, clock)
  if (isProblem(from)) return from
  if (when.to !== undefined) {
    const fromDay = when.from.day === undefined ? undefined : from
    const to = resolveMoment(
      when.to.day === undefined && fromDay !== undefined
        ? { ...when.to, day: () => ({ start: from.day, end: from.day + 1 }) }
        : when.to,
      clock
    )
    if (isProblem(to)) return to
    const fromStart = when.from.day === undefined && when.to.day !== undefined ?
      resolveMoment({ ...when.from, day: () => ({ start: to.day, end: to.day + 1 }) }, clock) :
      from
    if (isProblem(fromStart)) return fromStart
    const startLocal = fromStart.start
    const endLocal = when.to.time === undefined ? to.end : to.start
    const start = localInstant(clock, startLocal[0], startLocal[1])
    const end = localInstant(clock, endLocal[0], endLocal[1])
    if (start === undefined || end === undefined) return { problem: "unreadable", what: when.from.text }
    if (end.ms <= start.ms) return { problem: "ambiguous", what: `${when.from.text} to ${when.to.text}` }
    if (end.ms <= clock.nowMs) return { problem: "past", what: `${when.from.text} to ${when.to.text}` }
    return { type: "window", start, end }
  }
  const local = when.cue === "on" ?
    [from.start, from.end] :
    when.cue === "before" ?
    [from.start, from.start] :
    when.from.time === undefined ?
    [from.end, from.end] :
    [from.start, from.start]
  const start = localInstant(clock, local[0]![0], local[0]![1])
  const end = localInstant(clock, local[1]![0], local[1]![1])
  if (start === undefined || end === undefined) return { problem: "unreadable", what: when.from.text }
  if (when.cue === "on") {
    if (end.ms <= clock.nowMs) return { problem: "past", what: when.from.text }
    return { type: "window", start, end }
  }
  if (start.ms <= clock.nowMs) return { problem: "past", what: when.from.text }
  return { type: "deadline", start, end: start }
}

/** A moment as local [day, minutes] bounds: its start and its end. */
const resolveMoment = (
  moment: Moment,
  clock: Clock
):
  | { readonly day: number; readonly start: readonly [number, number]; readonly end: readonly [number, number] }
  | Problem =>
{
  const span = moment.day === undefined ? single(clock.today) : moment.day(clock)
  if (isProblem(span)) return span
  const time = moment.time
  if (time === undefined) return { day: span.start, start: [span.start, 0], end: [span.end, 0] }
  if (span.end - span.start !== 1) return { problem: "ambiguous", what: moment.text }
  if (time === nowTime || time.start < 0) {
    const zoned = DateTime.makeZoned(clock.nowMs, { timeZone: clock.zone })
    const minutes = Option.isNone(zoned)
      ? 0
      : DateTime.toParts(zoned.value).hour * 60 + DateTime.toParts(zoned.value).minute
    return { day: span.start, start: [span.start, minutes], end: [span.start, minutes + 1] }
  }
  const end = time.end === undefined ? time.start + 1 : time.end <= time.start ? time.end + 1440 : time.end
  return { day: span.start, start: [span.start, time.start], end: [span.start, end] }
}

// ---------------------------------------------------------------------------------------------------
// Layers.

/** Rule-based, deterministic and offline: no network, no model. */
export const layerLive: Layer.Layer<Interpreter> = Layer.succeed(Interpreter)({
  interpret: (input) => Effect.sync(() => interpretRequest(input))
})

/**
 * For other services' tests: a scripted interpretation for the requests a test names (by their exact
 * text; a function receives the whole input, answers included), the rule-based reader for the rest.
 */
export const layerTest = (
  script: Readonly<Record<string, Interpretation | ((input: InterpretInput) => Interpretation)>> = {}
): Layer.Layer<Interpreter> =>
  Layer.succeed(Interpreter)({
    interpret: (input) =>
      Effect.sync(() => {
        const scripted = Object.hasOwn(script, input.request) ? script[input.request] : undefined
        if (scripted === undefined) return interpretRequest(input)
        return typeof scripted === "function" ? scripted(input) : scripted
      })
  })
