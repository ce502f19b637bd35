import countryToCurrency from "country-to-currency"
import { currencyCodes } from "../../schema/Constraint.ts"
import lexicon from "./Lexicon.json" with { type: "json" }
import { matches } from "./Words.ts"

/** A sign or word several currencies share: the place decides which one is meant. */
type Family = "dollar" | "yen" | "krone" | "rupee" | "peso" | "franc" | "dirham"
export type Mention = { readonly code: string } | { readonly family: Family }

export interface MoneyReading {
  /** A decimal string ("1200", "12.5"), or "ambiguous" for "1.200". */
  readonly amount: string | "ambiguous"
  readonly currency: Mention | undefined
  readonly per: string | undefined
  readonly text: string
  readonly span: readonly [number, number]
}

const families: Record<Family, ReadonlyArray<string>> = lexicon.currencyFamilies
const words: Record<string, string> = lexicon.currencyWords
const adjectives: Record<string, string> = lexicon.currencyAdjectives
export const mentionOf = (word: string): Mention | undefined => {
  const w = word.toLowerCase().replace(/\s+/g, " ")
  const adjective = /^(.+) (?:dollars?|pesos?|kron(?:a|e|er|or)|rupees?|francs?)$/.exec(w)?.[1]
  if (adjective !== undefined && adjectives[adjective] !== undefined) return { code: adjectives[adjective] }
  if (/^[A-Z]{3}$/i.test(word) && currencyCodes.has(word.toUpperCase())) return { code: word.toUpperCase() }
  const named = words[w] ?? words[w.replace(/s$/, "")]
  if (named === undefined) return undefined
  return named in families ? { family: named as Family } : { code: named }
}

/** Words match as written or capitalised ("Euros"); codes only in capitals, so "for" is never a currency. */
const either = (w: string) => w.replace(/[$.]/g, "\\$&").replace(/^[a-z]/, (c) => `[${c}${c.toUpperCase()}]`)
const currencyWord = `(?:(?:${
  Object.keys(adjectives).map(either).join("|")
}) (?:[dD]ollars?|[pP]esos?|[kK]ron\\w+|[fF]rancs?)|[A-Z]{3}|${
  Object.keys(words).sort((a, b) => b.length - a.length).flatMap((
    w
  ) => [either(w), w.toUpperCase().replace(/[$.]/g, "\\$&")]).join("|")
})`
const number = String.raw`\d[\d,.']*(?:\s?(?:k|K|grand|thousand|m|million)\b)?`
const perWords = "person|head|night|ticket|room|guest|adult|seat|item|hour|day|kg|piece|bottle|week|month"
const amountPattern = new RegExp(
  String
    .raw`(?<![\w.,])(?:(?<pre>${currencyWord})\s?)?(?<num>${number})(?:(?:\s?-\s?|\s(?:to|and)\s)(?:(?<pre2>${currencyWord})\s?)?(?<num2>${number}))?(?:\s?(?<post>${currencyWord})(?![\w$]))?(?:\s?(?<per>each|apiece|pp|pppn|(?:per|an?|\/)\s?(?:${perWords})))?`,
  "gu"
)
const maxCue =
  /(?:under|below|max(?:imum)?|at most|up to|budget(?: of| is)?|spend(?:ing)?(?: up to| at most)?|less than|no more than|not more than|cap(?:ped)? at|limit(?: of)?|within|tops|around|about|between|cheaper than|for)\s*$/i
const minCue = /(?:over|above|at least|more than|from|starting at|minimum|min)\s*$/i
/** A number as written: "1,200", "1.5k", "40 000"; "1.200" could be either, so it is "ambiguous". */
const readNumber = (raw: string): string | "ambiguous" | undefined => {
  const [, body = "", multiplier] = /^(\d[\d,.' ]*?)\s?(k|grand|thousand|m|million)?$/i.exec(raw.trim()) ?? []
  const digits = body.replace(/[' ]/g, "")
  const [seps, last] = [digits.replace(/\d/g, ""), Math.max(digits.lastIndexOf("."), digits.lastIndexOf(","))]
  const after = digits.length - last - 1
  if (after === 3 && seps === "." && multiplier === undefined) return "ambiguous"
  // The last separator is the decimal point, unless three digits follow it and it is the only kind used.
  const plain = last >= 0 && (after !== 3 || new Set(seps).size === 2) ?
    `${digits.slice(0, last).replace(/\D/g, "")}.${digits.slice(last + 1)}` :
    digits.replace(/\D/g, "")
  const zeros = multiplier === undefined ? 0 : /^m/i.test(multiplier) ? 6 : 3
  const [int = "", frac = ""] = plain.split(".")
  const shifted = `${int}${frac.padEnd(zeros, "0").slice(0, zeros)}.${frac.slice(zeros)}`
  return body === "" ? undefined : shifted.replace(/^0+(?=\d)/, "").replace(/\.$/, "")
}

export const readMoney = (text: string): Array<MoneyReading> =>
  matches(text, amountPattern).flatMap((m): Array<MoneyReading> => {
    const g = m.groups ?? {}
    const currency = [g.pre, g.pre2, g.post].flatMap((w) => (w === undefined ? [] : [mentionOf(w) ?? []].flat()))[0]
    const before = text.slice(Math.max(0, m.index - 40), m.index)
    if (minCue.test(before) && !maxCue.test(before) && g.num2 === undefined) return []
    const bare = !maxCue.test(before) || /\b(?:for|around|about)\s*$/i.test(before) ||
      /^\s*(?:%|:|\/|min|hours?|days?|nights?|people|persons|guests|am|pm)/i.test(
        text.slice(m.index + m[0].length, m.index + m[0].length + 12)
      )
    if (currency === undefined && bare) return []
    const amount = readNumber(g.num2 ?? g.num ?? "")
    if (amount === undefined) return []
    const per = g.per?.replace(/^(?:per|an|a|\/)\s?/i, "").toLowerCase()
    const unit = per?.replace(/^(?:each|apiece)$/, "item").replace(/^pp$|^pppn$/, "person")
    return [{ amount, currency, per: unit, text: m[0].trim(), span: [m.index, m.index + m[0].length] }]
  })

/** Which currency a mention means where the request is set: "$" in Toronto is Canadian. */
export const resolveCurrency = (mention: Mention, countries: ReadonlyArray<string>): string | ReadonlyArray<string> => {
  if ("code" in mention) return mention.code
  const local = [...new Set(countries.map((c) => currencyOf[c] ?? ""))].filter((c) =>
    families[mention.family].includes(c)
  )
  if (local.length === 0 && (mention.family === "dollar" || mention.family === "yen")) {
    return families[mention.family][0]!
  }
  return local.length === 1 ? local[0]! : local.length > 1 ? local : families[mention.family]
}

export const localCurrency = (countries: ReadonlyArray<string>): string | undefined => {
  const codes = [...new Set(countries.flatMap((c) => currencyOf[c] ?? []))]
  return codes.length === 1 ? codes[0] : undefined
}

const currencyOf = countryToCurrency as Record<string, string>

/** The contract's amount: a decimal with the currency's minor units, times a count; or why it cannot be. */
export const formatAmount = (amount: string, currency: string, times = 1): string | "too-large" | "too-precise" => {
  const [int = "0", frac = ""] = amount.split(".")
  const minor = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits
  const digits = Math.max(minor ?? 2, frac.replace(/0+$/, "").length)
  if (digits > 4) return "too-precise"
  const units = BigInt(`${int}${frac.padEnd(digits, "0").slice(0, digits)}`) * BigInt(times)
  const s = units.toString().padStart(digits + 1, "0")
  const whole = s.slice(0, s.length - digits)
  if (whole.length > 15) return "too-large"
  return digits === 0 ? whole : `${whole}.${s.slice(s.length - digits)}`
}
