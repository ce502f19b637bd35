import * as Money from "../../schema/Money.ts"
import { dedupe } from "../text/Words.ts"
import type { Findings } from "./Missing.ts"
import type { MoneyReading } from "./Money.ts"
import { formatAmount, localCurrency, mentionOf, readMoney, resolveCurrency } from "./Money.ts"
import type { Words } from "./Text.ts"

/** An amount read, with its words. */
export type Amount = MoneyReading & { readonly words: ReadonlyArray<Words> }
/** How many of a unit, and the words that say so. */
export type PerUnit = (unit: string) => { readonly count: number; readonly words: ReadonlyArray<Words> } | undefined

const none = /^(?:no|none|nothing|no budget|no limit|any|unlimited|doesn't matter|n\/a|skip)\b/i
/** The most to spend: an amount in one currency; per person, per night or per ticket, times how many. */
export const readBudget = (
  own: ReadonlyArray<Amount>,
  answers: ReadonlyArray<{ readonly q: string; readonly text: string; readonly money: ReadonlyArray<Amount> }>,
  countries: ReadonlyArray<string>,
  /** The words that name the place whose currency an amount without one is in. */
  placeWords: ReadonlyArray<Words>,
  callers: ReadonlyArray<Money.Money>,
  perUnit: PerUnit,
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
      : ask(about, "What is the most to spend, and in which currency?")
  }
  const currencyAnswer = answers.find((a) => a.q === "q_budget_currency")?.text
  const answered = currencyAnswer === undefined ? undefined : mentionOf(currencyAnswer.replace(/^in\s+/i, "")) ??
    [`1 ${currencyAnswer}`, `${currencyAnswer} 1`].map((probe) => readMoney(probe)[0]?.currency).find((c) =>
      c !== undefined
    )
  const readings = dedupe(
    money.map((m) => {
      const mention = answered ?? m.currency ?? [...money, ...own].find((o) => o.currency !== undefined)?.currency
      const currency = mention === undefined ? localCurrency(countries) : resolveCurrency(mention, countries)
      const placed = mention === undefined || !("code" in mention)
      return { ...m, currency, words: placed ? [...m.words, ...placeWords] : m.words }
    }),
    (r) => `${r.amount} ${JSON.stringify(r.currency)} ${r.per}`
  )
  const m = readings[0]!
  const { currency } = m
  const per = m.per === undefined ? { count: 1, words: [] } : perUnit(m.per)
  const times = per?.count
  const amount = typeof currency !== "string" || m.amount === "ambiguous" || times === undefined ?
    undefined :
    formatAmount(m.amount, currency, times)
  const listed = readings.map((r) => r.text).join(", ")
  const given = callers.map((c) => `${c.amount} ${c.currency}`).join(", ")
  if (readings.length > 1) ask(about, `The request names more than one budget (${listed}): what is the most to spend?`)
  else if (m.amount === "ambiguous") {
    ask("budget.amount", `Is ${m.text} a whole amount or a decimal one? Please write it again.`)
  } else if (typeof currency !== "string") {
    ask("budget.currency", `Which currency is ${m.text} in${currency ? `: ${currency.join(" or ")}` : ""}?`)
  } else if (times === undefined) result.add({ type: "note", text: `at most ${m.text}` }, m.words)
  else if (amount === undefined || !/^\d/.test(amount)) {
    ask("budget.amount", `${m.text} cannot be a budget: what is the most to spend?`)
  } else if (callers.some((c) => Money.equals(c, { amount, currency }))) return
  else if (
    callers.length > 0 && answer === undefined &&
    !callers.some((c) => Money.compare(c, { amount, currency }) === 1)
  ) {
    // The words and the caller's budget disagree: more than the caller allows, or another currency.
    // Words within the caller's budget are the stricter fact, and stand.
    result.ask("budget", `The request says at most ${amount} ${currency} but ${given} was given: what is the most?`)
  } else result.add({ type: "budget", max: { amount, currency } }, [...m.words, ...(per?.words ?? [])])
}
