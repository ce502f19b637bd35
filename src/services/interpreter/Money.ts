import countryToCurrency from "country-to-currency"
import * as Option from "effect/Option"
import { amountOf, currencyCodes, minorUnits, parse } from "../../schema/Money.ts"
import { matches } from "../text/Words.ts"
import data from "./Currencies.json" with { type: "json" }
import { localeOf } from "./Locale.ts"

/** A currency by its code, or a sign or word several currencies share ("$", "kr", "pesos"): the place decides. */
export type Mention = { readonly code: string } | { readonly family: string }

export interface MoneyReading {
  /** A decimal string ("1200", "12.5"), or "ambiguous" for "1.200" where nothing says whether the dot groups. */
  readonly amount: string | "ambiguous"
  readonly currency: Mention | undefined
  readonly per: string | undefined
  readonly text: string
  readonly span: readonly [number, number]
}

interface Family {
  readonly names?: ReadonlyArray<string>
  readonly signs?: ReadonlyArray<string>
  readonly default?: string
}
const families: Readonly<Record<string, Family>> = data.families
const signs: Readonly<Record<string, string>> = data.signs
const words: Readonly<Record<string, string>> = data.words
const adjectives: Readonly<Record<string, string>> = data.adjectives
const multipliers: Readonly<Record<string, number>> = data.multipliers
const currencyOf = countryToCurrency as Readonly<Record<string, string>>

const memo = <A>(f: (key: string) => A) => {
  const cache = new Map<string, A>()
  return (key: string): A => {
    if (!cache.has(key)) cache.set(key, f(key))
    return cache.get(key)!
  }
}
const commaDecimal = memo((country) => {
  const locale = localeOf(country)
  return locale !== undefined && new Intl.NumberFormat(locale, { numberingSystem: "latn" }).formatToParts(1234567.5)
        .find((p) => p.type === "decimal")?.value === ","
})
const countriesUsing = memo((code) => Object.keys(currencyOf).filter((country) => currencyOf[country] === code))
const localSign = (code: string, country: string) => {
  const locale = localeOf(country)
  return locale === undefined ? undefined : new Intl.NumberFormat(locale, { style: "currency", currency: code })
    .formatToParts(1).find((p) => p.type === "currency")?.value
}
const names = new Intl.DisplayNames("en", { type: "currency" })
const inUse = [...new Set(Object.values(currencyOf))].filter((code) => currencyCodes.has(code)).sort()
/** The currencies a family stands for: by their English name ("… Krone"), or by the sign their own country writes. */
const membersOf = memo((family): ReadonlyArray<string> => {
  const { default: first, names: endings = [], signs: written = [] } = families[family] ?? {}
  const members = inUse.filter((code) =>
    endings.some((end) => names.of(code)?.toLowerCase().endsWith(end)) ||
    countriesUsing(code).some((country) => written.includes(localSign(code, country) ?? ""))
  )
  return first === undefined ? members : [first, ...members.filter((code) => code !== first)]
})

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
const caseless = (s: string) =>
  [...escape(s)].map((c) => (c.toLowerCase() === c.toUpperCase() ? c : `[${c.toLowerCase()}${c.toUpperCase()}]`))
    .join("")
const longestFirst = (xs: ReadonlyArray<string>) => [...xs].sort((a, b) => b.length - a.length)
const phrases = (xs: ReadonlyArray<string>) => longestFirst(xs).map((x) => escape(x).replace(/ /g, "\\s+")).join("|")
const entry = <A>(record: Readonly<Record<string, A>>, key: string): A | undefined =>
  Object.hasOwn(record, key) ? record[key] : undefined
const toMention = (value: string | undefined): Mention | undefined =>
  value === undefined ? undefined : entry(families, value) !== undefined ? { family: value } : { code: value }
/** A sign, word or code as a currency; codes in any case here, as an answer to "which currency?" may be "eur". */
export const mentionOf = (word: string): Mention | undefined => {
  const w = word.trim().replace(/\s+/g, " ")
  const lower = w.toLowerCase()
  const adjective = Object.keys(adjectives).find((a) =>
    lower.startsWith(`${a} `) && entry(words, lower.slice(a.length + 1)) !== undefined
  )
  const country = entry(currencyOf, entry(adjectives, adjective ?? "") ?? "")
  if (country !== undefined) return { code: country }
  if (/^[A-Z]{3}$/i.test(w) && currencyCodes.has(w.toUpperCase())) return { code: w.toUpperCase() }
  return toMention(entry(signs, w) ?? entry(words, lower))
}

/** Codes only in capitals, so "for" is never a currency; "ALL" and "TOP" are read as the words. */
const codes = longestFirst([...currencyCodes].filter((c) => !data.notCodes.includes(c))).join("|")
const signPattern = longestFirst(Object.keys(signs)).map(escape).join("|")
/** After the number "kr." is "kr" and a full stop. */
const postSignPattern = longestFirst(Object.keys(signs).filter((x) => !x.endsWith("."))).map(escape).join("|")
const nouns = longestFirst(Object.keys(words)).map(caseless)
const wordPattern = [
  `(?:${Object.keys(adjectives).map(caseless).join("|")}) (?:${nouns.join("|")})`,
  ...nouns
].join("|")
const number = String.raw`(?:(?<!\b(?:for|of) )\d{1,3}(?: \d{3})+(?:[.,]\d{1,2})?(?![\d.,'’]?\d)|\d+(?:[.,'’]\d+)*)`
const glued = data.gluedMultipliers
const multiplier = `(?:${glued.map(escape).join("|")}|\\s?(?:${
  longestFirst(Object.keys(multipliers).filter((m) => !glued.includes(m))).join("|")
}))(?![\\p{L}\\d])`
const per = `each|apiece|pppn|pp|(?:per|an?|\\/)\\s?(?:${data.perWords.join("|")})`
const currencyBefore = `${signPattern}|${codes}`
const opening = String.raw`(?<![\p{L}\d.,])(?:(?<pre>${currencyBefore}|R(?= ?\d))\s?)?`
const upTo = String.raw`\s?(?:-|–|to|and)\s?(?:(?<pre2>${currencyBefore})\s?)?(?<num2>${number})`
const closing = String.raw`(?:\s?(?<post>${postSignPattern}|${codes}|${wordPattern})(?![\p{L}\d$]))?`
const amountPattern = new RegExp(
  `${opening}(?<num>${number})(?<mult>${multiplier})?(?:${upTo}(?<mult2>${multiplier})?)?${closing}` +
    String.raw`(?:\s?(?<per>${per})(?![\p{L}]))?`,
  "gdu"
)
const before = (list: ReadonlyArray<string>) => new RegExp(`(?<![\\p{L}])(?:${phrases(list)})[:.]?\\s*$`, "iu")
const capBefore = before(data.capsBefore)
const floorBefore = before(data.floorsBefore)
/** "300 max", but not "12, max €300" or "12 max EUR 300": a cap word before another amount is that amount's. */
const capAfter = new RegExp(`^\\s*(?:${phrases(data.capsAfter)})(?![\\p{L}])(?!\\s*\\S{0,4}\\s?\\d)`, "iu")
const unitAfter = new RegExp(`^\\s?(?:${phrases(data.notMoneyAfter)})(?![\\p{L}])`, "iu")
/** Ages and counts, not prices: "kids under 12", "for up to 6", "a table for 6 max". */
const ages = new RegExp(
  String.raw`\b(?:(?:kids?|children|child|ages?|aged|bab(?:y|ies)|infants?|toddlers?|teens?|guests|adults?)\s+` +
    String.raw`(?:under|below|up to)|for\s+(?:up to|max(?:imum)?|at most|under))\s*$`,
  "i"
)
const counted = /\b(?:for|of|x)\s*$/i
const road = /\b(?:the|via|on|onto|off|take|exit|along|route)\s*$/i
/** Something glued to the number that makes it a size, a time, a model or a count: "16GB", "4x4", "21h15", "65"". */
const attached = /^(?:[\p{L}\d"″'’°%]|[-/:.,×][\p{L}\d])/u

/**
 * A number as written: "1,200", "1.5k", "40 000", "1'600", "3.200,50"; the last separator is the decimal point
 * unless it is the only one and three digits follow. A lone dot before three digits groups thousands only where
 * dots group them (`dotGroups`); elsewhere it could be either, so the amount is "ambiguous".
 */
const readNumber = (raw: string, exponent: number, dotGroups: () => boolean): string | "ambiguous" => {
  const digits = raw.replace(/[ '’]/g, "")
  const last = Math.max(digits.lastIndexOf("."), digits.lastIndexOf(","))
  const separator = digits[last] ?? ""
  const kinds = new Set(digits.replace(/\d/g, ""))
  const once = digits.split(separator).length === 2
  const after = digits.length - last - 1
  if (kinds.size === 1 && once && after === 3 && separator === "." && exponent === 0 && !dotGroups()) {
    return "ambiguous"
  }
  const decimal = last >= 0 && (kinds.size === 2 || (once && after !== 3))
  const plain = decimal
    ? `${digits.slice(0, last).replace(/\D/g, "")}.${digits.slice(last + 1)}`
    : digits.replace(/\D/g, "")
  const [int = "", frac = ""] = plain.split(".")
  const shifted = `${int}${frac.padEnd(exponent, "0").slice(0, exponent)}.${frac.slice(exponent)}`
  return shifted.replace(/^0+(?=\d)/, "").replace(/\.$/, "")
}
const exponentOf = (mult: string | undefined) => multipliers[mult?.trim() ?? ""] ?? 0
const valueOf = (raw: string, mult: string | undefined) => Number(readNumber(raw, exponentOf(mult), () => true))

/** Whether the place, or the only currencies meant, write "1.200" for a thousand and two hundred. */
const writesDotGroups = (candidates: ReadonlyArray<string>, countries: ReadonlyArray<string>) =>
  (countries.length > 0 && countries.every(commaDecimal)) ||
  (candidates.length > 0 &&
    candidates.every((code) =>
      minorUnits(code) === 0 || (countriesUsing(code).length > 0 && countriesUsing(code).every(commaDecimal))
    ))

/** A currency word that is not one here: "2 pounds of coffee", the street "26 Dong Khoi". */
const notCurrency = (post: string, rest: string) =>
  (/^pounds?$/i.test(post) && /^\s+of\b/i.test(rest)) ||
  (entry(signs, post) === undefined && /^\p{Lu}\p{Ll}+$/u.test(post) && /^ \p{Lu}/u.test(rest))

/**
 * The amounts of money the text names, with their currency as written. An amount with a sign, word or code is always
 * read; a bare number only right after or before a cap ("max 300", "300 tops"), and then the place's currency applies.
 * `countries` (ISO 3166 alpha-2) are the place's, which decide how "1.200" and "kr" read.
 */
export const readMoney = (text: string, countries: ReadonlyArray<string> = []): Array<MoneyReading> =>
  matches(text, amountPattern).flatMap((m): Array<MoneyReading> => {
    const g = m.groups ?? {}
    const at = m.indices?.groups ?? {}
    const end = (...groups: ReadonlyArray<string>) => Math.max(...groups.map((n) => at[n]?.[1] ?? 0))
    const start = m.index
    // What comes before an amount that can say what it is: a few words, not the whole text.
    const lead = text.slice(Math.max(0, start - 60), start)
    // "€300 and 4 people" is no range: what follows the first amount is not its own.
    const range = g.num2 !== undefined && valueOf(g.num2, g.mult2) >= valueOf(g.num!, g.mult)
    const numberEnd = range ? end("num2", "mult2") : end("num", "mult")
    const own = range || g.num2 === undefined
    const post = own && g.post !== undefined && !notCurrency(g.post, text.slice(end("post"))) ? g.post : undefined
    const per = own && (g.post === undefined || post !== undefined) ? g.per : undefined
    const stop = Math.max(numberEnd, post === undefined ? 0 : end("post"), per === undefined ? 0 : end("per"))
    const tail = text.slice(stop)
    const cued = !ages.test(lead) && (capBefore.test(lead) || (capAfter.test(tail) && !counted.test(lead)))
    if (attached.test(tail) || (floorBefore.test(lead) && !capBefore.test(lead) && !range)) return []
    const rand = g.pre === "R"
    if (rand && (road.test(lead) || !(cued || countries.includes("ZA") || /[ ,.]/.test(g.num!)))) return []
    const currency = [rand ? "ZAR" : g.pre, range ? g.pre2 : undefined, post]
      .map((w) => (w === undefined ? undefined : mentionOf(w))).find((c) => c !== undefined)
    const rupees = [g.mult, g.mult2].some((x) => data.rupeeMultipliers.includes(x?.trim() ?? ""))
    if (currency === undefined && !rupees && (!cued || unitAfter.test(text.slice(numberEnd)))) return []
    const candidates = () => {
      const resolved = currency === undefined ? localCurrency(countries) : resolveCurrency(currency, countries)
      return resolved === undefined ? [] : [resolved].flat()
    }
    const [raw, mult] = range ? [g.num2!, g.mult2] : [g.num!, g.mult]
    const amount = readNumber(raw, exponentOf(mult), () => writesDotGroups(candidates(), countries))
    const unit = per?.replace(/^(?:per|an|a|\/)\s?/i, "").toLowerCase()
    return [{
      amount,
      currency,
      per: unit?.replace(/^(?:each|apiece)$/, "item").replace(/^pp$|^pppn$/, "person"),
      text: text.slice(start, stop),
      span: [start, stop]
    }]
  })

/** Which currency a mention means where the request is set: "$" in Toronto is Canadian, "kr" in Keflavík Icelandic. */
export const resolveCurrency = (mention: Mention, countries: ReadonlyArray<string>): string | ReadonlyArray<string> => {
  if ("code" in mention) return mention.code
  const members = membersOf(mention.family)
  const local = [...new Set(countries.map((c) => currencyOf[c] ?? ""))].filter((c) => members.includes(c))
  const fallback = families[mention.family]?.default
  if (local.length === 0) return fallback ?? (members.length === 1 ? members[0]! : members)
  return local.length === 1 ? local[0]! : local
}

export const localCurrency = (countries: ReadonlyArray<string>): string | undefined => {
  const codes = [...new Set(countries.flatMap((c) => currencyOf[c] ?? []))]
  return codes.length === 1 ? codes[0] : undefined
}

/** The contract's amount for an amount as read (a plain decimal), times a count; or why it cannot be one. */
export const formatAmount = (amount: string, currency: string, times = 1): string | "too-large" | "too-precise" =>
  amountOf(Option.getOrThrow(parse(amount)), currency, times)

/** The country whose own currency a code is (ISO 4217 codes begin with the country's: JPY is Japan's). */
export const homeOf = (code: string): string | undefined =>
  currencyOf[code.slice(0, 2)] === code ? code.slice(0, 2) : undefined
