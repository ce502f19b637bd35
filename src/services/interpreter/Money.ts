import countryToCurrency from "country-to-currency"
import type { Money } from "../../schema/Constraint.ts"
import { currencyCodes } from "../../schema/Constraint.ts"
import lexicon from "./Lexicon.json" with { type: "json" }
import type { Findings } from "./Missing.ts"
import { dedupe, matches } from "./Words.ts"

/** A sign or word several currencies share: the place decides which one is meant. */
type Family = "dollar" | "yen" | "krone" | "rupee" | "peso" | "franc" | "dirham"
export type Mention = { readonly code: string } | { readonly family: Family }

export interface MoneyReading {
  /** A decimal string ("1200", "12.5"), or "ambiguous" for "1.200". */
  readonly amount: string | "ambiguous"
  readonly currency: Mention | undefined
  /** "per person", "a night", "each": the amount is for one of these. */
  readonly per: string | undefined
  readonly text: string
  readonly span: readonly [number, number]
}

const families: Record<Family, ReadonlyArray<string>> = lexicon.currencyFamilies
/** Signs and words, each with its currency or the family it belongs to. */
const words: Record<string, string> = lexicon.currencyWords
/** Adjectives that say which dollar or peso: "Canadian dollars", "Mexican pesos". */
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
  const m = /^(\d[\d,.' ]*?)\s?(k|grand|thousand|m|million)?$/i.exec(raw.trim())
  if (m === null) return undefined
  let digits = m[1]!.replace(/[' ]/g, "")
  const lastSep = Math.max(digits.lastIndexOf("."), digits.lastIndexOf(","))
  if (lastSep >= 0) {
    const after = digits.length - lastSep - 1
    const seps = digits.replace(/\d/g, "")
    if (after === 3 && seps.length === 1 && digits[lastSep] === "." && m[2] === undefined) return "ambiguous"
    const decimal = after !== 3 || new Set(seps).size === 2 ? digits[lastSep] : undefined
    digits = decimal === undefined ?
      digits.replace(/[.,]/g, "") :
      `${digits.slice(0, lastSep).replace(/[.,]/g, "")}.${digits.slice(lastSep + 1)}`
  }
  const zeros = m[2] === undefined ? 0 : /^m/i.test(m[2]) ? 6 : 3
  if (zeros === 0) return digits.replace(/^0+(?=\d)/, "")
  const [int = "0", frac = ""] = digits.split(".")
  const shifted = `${int}${frac.padEnd(zeros, "0").slice(0, zeros)}.${frac.slice(zeros)}`
  return shifted.replace(/^0+(?=\d)/, "").replace(/\.$/, "")
}

/** Amounts of money: with a currency, or bare after a word that makes them a most-to-spend. */
export const readMoney = (text: string): Array<MoneyReading> =>
  matches(text, amountPattern).flatMap((m): Array<MoneyReading> => {
    const g = m.groups ?? {}
    const currency = [g.pre, g.pre2, g.post].flatMap((w) => (w === undefined ? [] : [mentionOf(w) ?? []].flat()))[0]
    const before = text.slice(Math.max(0, m.index - 40), m.index)
    if (minCue.test(before) && !maxCue.test(before) && g.num2 === undefined) return []
    const bare = !maxCue.test(before) || /\b(?:for|around|about)\s*$/i.test(before) ||
      /^\s*(?:%|:|\/|min|hours?|days?|nights?|people|persons|guests|am|pm)/i.test(text.slice(m.index + m[0].length))
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

/** The currency of the place the request is set in, for an amount written without one. */
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

const none = /^(?:no|none|nothing|no budget|no limit|any|unlimited|doesn't matter|n\/a|skip)\b/i

/** The most to spend: an amount in one currency; per person, per night or per ticket, times how many. */
export const readBudget = (
  own: ReadonlyArray<MoneyReading>,
  answers: ReadonlyArray<{ readonly q: string; readonly text: string; readonly money: ReadonlyArray<MoneyReading> }>,
  countries: ReadonlyArray<string>,
  callers: ReadonlyArray<Money>,
  perUnit: (unit: string) => number | undefined,
  result: Findings
) => {
  const answer = answers.filter((a) => a.q === "q_budget" || a.q === "q_budget_amount").at(-1)
  if (answer !== undefined && none.test(answer.text)) return
  const about = answer?.q === "q_budget_amount" ? "budget.amount" : "budget"
  // With the caller's own budget, words that cannot be read are left to it rather than asked about.
  const ask = (on: "budget" | "budget.amount" | "budget.currency", text: string) =>
    callers.length > 0 && answer === undefined ? undefined : result.ask(on, text)
  const money = [...answers].reverse().find((a) => a.money.length > 0)?.money ?? own
  if (money.length === 0) {
    return answer === undefined
      ? undefined
      : ask(about, "What is the most to spend, with its currency?")
  }
  const currencyAnswer = answers.find((a) => a.q === "q_budget_currency")?.text
  const answered = currencyAnswer === undefined ? undefined : mentionOf(currencyAnswer.replace(/^in\s+/i, "")) ??
    [`1 ${currencyAnswer}`, `${currencyAnswer} 1`].map((probe) => readMoney(probe)[0]?.currency).find((c) =>
      c !== undefined
    )
  const readings = dedupe(
    money.map((m) => {
      const mention = answered ?? m.currency ?? [...money, ...own].find((o) => o.currency !== undefined)?.currency
      return { ...m, currency: mention === undefined ? localCurrency(countries) : resolveCurrency(mention, countries) }
    }),
    (r) => `${r.amount} ${JSON.stringify(r.currency)} ${r.per}`
  )
  const m = readings[0]!
  const times = m.per === undefined ? 1 : perUnit(m.per)
  const amount = typeof m.currency !== "string" || m.amount === "ambiguous" || times === undefined ?
    undefined :
    formatAmount(m.amount, m.currency, times)
  if (readings.length > 1) {
    ask(
      about,
      `The request names more than one budget (${readings.map((r) => r.text).join(", ")}): what is the most to spend?`
    )
  } else if (m.amount === "ambiguous") {
    ask(
      "budget.amount",
      `Is ${m.text} a whole amount or a decimal one? Please write the most to spend, e.g. "1200 EUR".`
    )
  } else if (typeof m.currency !== "string") {
    ask(
      "budget.currency",
      `Which currency is the budget of ${m.text} in${m.currency ? `: ${m.currency.join(" or ")}` : ""}?`
    )
  } else if (times === undefined) {
    result.constraints.push({ type: "note", text: `at most ${m.text}` })
  } else if (amount === "too-large" || amount === "too-precise" || amount === undefined) {
    ask("budget.amount", `${m.text} cannot be a budget: what is the most to spend, with its currency?`)
  } else if (!callers.some((c) => c.currency === m.currency && Number(c.amount) <= Number(amount))) {
    if (callers.length === 0 || answer !== undefined) {
      result.constraints.push({ type: "budget", max: { amount, currency: m.currency } })
    } else {result.ask(
        "budget",
        `The request says at most ${amount} ${m.currency} but ${
          callers.map((c) => `${c.amount} ${c.currency}`).join(", ")
        } was given: what is the most to spend?`
      )}
  }
}
