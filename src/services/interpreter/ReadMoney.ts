import { currencyCodes } from "../../schema/Constraint.ts"
import type { CurrencyMention } from "./MoneyWords.ts"
import { currencyAdjectives, currencySymbols, currencyWords, dollarPrefixes, lowerCodes } from "./MoneyWords.ts"
import type { Decimal } from "./Numbers.ts"
import { parseNumber, timesThousand } from "./Numbers.ts"
import type { Reader } from "./Reader.ts"
import { budgetCues, minimumCues, moneyFollowers, perUnitWords } from "./Reading.ts"

export const readHint = (r: Reader, i: number): number | undefined => {
  const w = r.lower(i)
  if (["evening", "tonight", "night", "dinner", "supper", "afternoon"].includes(w)) r.out.hints.add("pm")
  else if (["morning", "breakfast"].includes(w)) r.out.hints.add("am")
  else if (w === "lunch" || w === "brunch") r.out.hints.add("lunch")
  return undefined
}

// ---- money -------------------------------------------------------------------------------------

export const readCurrency = (r: Reader, i: number): { end: number; currency: CurrencyMention } | undefined => {
  const token = r.tokens[i]
  if (token === undefined) return undefined
  if (token.kind === "sym") {
    const symbol = currencySymbols[token.text]
    return symbol === undefined ? undefined : { end: i + 1, currency: symbol }
  }
  if (token.kind !== "word") return undefined
  const next = r.tokens[i + 1]
  if (next?.text === "$" && !next.gap) {
    const code = dollarPrefixes[token.lower] ?? (token.lower === "r" ? "BRL" : undefined)
    if (code !== undefined) return { end: i + 2, currency: { code } }
  }
  if (token.text.length === 3 && token.text === token.text.toUpperCase() && currencyCodes.has(token.text)) {
    return { end: i + 1, currency: { code: token.text } }
  }
  if (lowerCodes.has(token.lower)) return { end: i + 1, currency: { code: token.lower.toUpperCase() } }
  const two = `${token.lower} ${r.lower(i + 1)}`
  const adjective = currencyAdjectives[two] !== undefined ?
    { code: currencyAdjectives[two]!, words: 2 } :
    currencyAdjectives[token.lower] !== undefined ?
    { code: currencyAdjectives[token.lower]!, words: 1 } :
    undefined
  if (adjective !== undefined) {
    const noun = currencyWords[r.lower(i + adjective.words)]
    if (noun !== undefined) return { end: i + adjective.words + 1, currency: { code: adjective.code } }
  }
  const word = currencyWords[token.lower]
  if (word === undefined) return undefined
  if ((token.lower === "pounds" || token.lower === "pound") && r.lower(i + 1) === "of") return undefined
  const end = (token.lower === "kr" || token.lower === "rs") && r.tokens[i + 1]?.text === "." ? i + 2 : i + 1
  return { end, currency: word }
}

/** A number with an optional multiplier ("1.5k", "2 thousand"): the index after it. */
export const readAmountNumber = (r: Reader, i: number): { end: number; amount: Decimal | "ambiguous" } | undefined => {
  const token = r.tokens[i]
  if (token?.kind !== "num") return undefined
  if (r.tokens[i - 1]?.text === "." && r.attached(i)) return undefined
  const parsed = parseNumber(token.text)
  if (parsed === undefined) return undefined
  const suffix = r.lower(i + 1)
  const attached = r.attached(i + 1)
  const zeros = (attached && suffix === "k") || suffix === "thousand" || suffix === "grand" ?
    3 :
    (attached && suffix === "m") || suffix === "million" || suffix === "mn" ?
    6 :
    0
  if (zeros === 0) return { end: i + 1, amount: parsed }
  return { end: i + 2, amount: parsed === "ambiguous" ? parsed : timesThousand(parsed, zeros) }
}

/** Whether the words before i make a number there an upper bound on spending, a lower one, or neither. */
export const budgetCue = (r: Reader, i: number): "max" | "min" | undefined => {
  for (let k = i - 1; k >= Math.max(0, i - 3); k--) {
    const w = r.lower(k)
    if (w === "than") {
      const before = r.lower(k - 1)
      return ["less", "cheaper", "lower", "fewer"].includes(before) || r.lower(k - 2) === "no" ||
          r.lower(k - 2) === "not"
        ? "max"
        : "min"
    }
    if (w === "to" && r.lower(k - 1) === "up") return "max"
    if (w === "exceed" || w === "exceeding") return "max"
    if (budgetCues.has(w)) return "max"
    if (minimumCues.has(w)) return "min"
    if (r.tokens[k]?.kind !== "word" || ["is", "of", "a", "about", "around", "roughly", "approx"].includes(w)) {
      continue
    }
    return undefined
  }
  return undefined
}

/** After an amount: "each", "per person", "a night", "/night", "pp". */
export const perUnitAt = (r: Reader, i: number): number | undefined => {
  const w = r.lower(i)
  if (w === "each" || w === "apiece" || w === "pp" || w === "pppn") return i + 1
  if (
    (w === "per" || w === "a" || w === "an" || w === "/") && perUnitWords.has(r.lower(i + 1).replace(/s$/, ""))
  ) {
    return i + 2
  }
  return undefined
}

export const readMoney = (r: Reader, i: number): number | undefined => {
  const prefix = r.readCurrency(i)
  const numberAt = prefix?.end ?? i
  const first = r.readAmountNumber(numberAt)
  if (first === undefined) return undefined
  let end = first.end
  let suffix = r.readCurrency(end)
  if (suffix !== undefined) end = suffix.end
  let amount = first.amount
  let currency = prefix?.currency ?? suffix?.currency
  let ranged = false
  // "between 100 and 200 dollars", "$100-$200", "100 to 200 EUR": the upper bound is the budget.
  const joiner = r.lower(end)
  if (joiner === "-" || joiner === "–" || joiner === "to" || (joiner === "and" && r.lower(i - 1) === "between")) {
    const secondPrefix = r.readCurrency(end + 1)
    const second = r.readAmountNumber(secondPrefix?.end ?? end + 1)
    if (second !== undefined) {
      const secondSuffix = r.readCurrency(second.end)
      const secondCurrency = secondPrefix?.currency ?? secondSuffix?.currency
      if (currency !== undefined || secondCurrency !== undefined || r.lower(i - 1) === "between") {
        amount = second.amount
        currency = secondCurrency ?? currency
        end = secondSuffix?.end ?? second.end
        suffix = secondSuffix
        ranged = true
      }
    }
  }
  const cue = r.budgetCue(i)
  if (currency === undefined) {
    // A bare number is money only after a spending word and when no unit follows it ("under 30 minutes").
    if (cue !== "max" || ranged && r.lower(i - 1) !== "between") return undefined
    const next = r.tokens[end]
    if (next !== undefined && next.kind === "word" && !moneyFollowers.has(next.lower)) return undefined
    if (next?.kind === "sym" && ["%", ":", "/", "-"].includes(next.text)) return undefined
  }
  const perUnit = r.perUnitAt(end)
  if (cue === "min" && !ranged) return perUnit ?? end
  r.out.money.push({
    amount,
    currency,
    perUnit: perUnit !== undefined,
    text: r.tokens.slice(i, end).map((t, k) => (k > 0 && t.gap ? " " : "") + t.text).join("")
  })
  return perUnit ?? end
}

export const readCurrencyAlone = (r: Reader, i: number): number | undefined => {
  const found = r.readCurrency(i)
  if (found === undefined) return undefined
  const token = r.tokens[i]!
  // Words that double as other words ("real", "won", "rand") count only next to a number.
  if (token.kind === "word" && ["rs", "kr", "rand", "lira", "dong", "won"].includes(token.lower)) return undefined
  r.out.currencies.push(found.currency)
  return found.end
}

// ---- dates and times ---------------------------------------------------------------------------
