import type { ConstraintInput } from "../../schema/Constraint.ts"
import { currencyCodes, isTimeZoneName } from "../../schema/Constraint.ts"
import type { Budget, Findings } from "./Findings.ts"
import { compareDecimalStrings, currencyName, id, isNoneAnswer, resolveCurrency, sameBudget } from "./Findings.ts"
import { collapse } from "./Kinds.ts"
import { currencyAdjectives, families, formatAmount } from "./MoneyWords.ts"
import type { Decimal } from "./Numbers.ts"
import { getGazetteer } from "./PlaceWords.ts"
import { Reader } from "./Reader.ts"
import type { MoneyReading, Reading } from "./Reading.ts"

export const dedupe = <A>(values: ReadonlyArray<A>): Array<A> => [...new Set(values)]

export const dedupeConstraints = (constraints: ReadonlyArray<ConstraintInput>): Array<ConstraintInput> => {
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

export const sameZone = (a: string, b: string) => canonicalZone(a) === canonicalZone(b)

export const readZoneAnswer = (answer: string): string | undefined => {
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

export const readBudget = (
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
