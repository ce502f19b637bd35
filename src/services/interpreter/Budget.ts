import type { Money } from "../../schema/Constraint.ts"
import type { When } from "./Dates.ts"
import type { Findings } from "./Missing.ts"
import type { MoneyReading } from "./Money.ts"
import { formatAmount, localCurrency, mentionOf, readMoney, resolveCurrency } from "./Money.ts"
import type { Count } from "./Quantities.ts"
import { dedupe } from "./Words.ts"

export interface ReadAnswer {
  readonly q: string
  readonly money: ReadonlyArray<MoneyReading>
  readonly counts: ReadonlyArray<Count>
  readonly whens: ReadonlyArray<When>
  readonly text: string
}

const none = /^(?:no|none|nothing|no budget|no limit|any|unlimited|doesn't matter|n\/a|skip)\b/i

/** The most to spend: an amount in one currency; per person, per night or per ticket, times how many. */
export const readBudget = (
  own: ReadonlyArray<MoneyReading>,
  answers: ReadonlyArray<ReadAnswer>,
  countries: ReadonlyArray<string>,
  callers: ReadonlyArray<Money>,
  perUnit: (unit: string) => number | undefined,
  result: Findings
) => {
  const budgetAnswer = answers.filter((a) => a.q === "q_budget" || a.q === "q_budget_amount").at(-1)
  if (budgetAnswer !== undefined && none.test(budgetAnswer.text)) return
  const money = [...answers].reverse().find((a) => a.money.length > 0)?.money ?? own
  if (money.length === 0) {
    if (budgetAnswer !== undefined) {
      result.ask(
        budgetAnswer.q === "q_budget" ? "budget" : "budget.amount",
        "What is the most to spend, with its currency?"
      )
    }
    return
  }
  const currencyAnswer = answers.find((a) => a.q === "q_budget_currency")
  const answeredCurrency = currencyAnswer?.money[0]?.currency ?? mentionIn(currencyAnswer?.text)
  const readings = money.map((m) => {
    const mention = answeredCurrency ?? m.currency ?? [...money, ...own].find((o) => o.currency !== undefined)?.currency
    const currency = mention === undefined ? localCurrency(countries) : resolveCurrency(mention, countries)
    return { ...m, currency }
  })
  const distinct = dedupe(readings, (r) => `${r.amount} ${JSON.stringify(r.currency)} ${r.per}`)
  const about = budgetAnswer === undefined ? "budget" : budgetAnswer.q === "q_budget" ? "budget" : "budget.amount"
  if (distinct.length > 1) {
    if (callers.length > 0) return
    return result.ask(
      about,
      `The request names more than one budget (${
        distinct.map((r) => r.text).join(", ")
      }): what is the most to spend, with its currency?`
    )
  }
  const m = distinct[0]!
  if (m.amount === "ambiguous") {
    if (callers.length > 0) return
    return result.ask(
      "budget.amount",
      `Is ${m.text} a whole amount or a decimal one? Please write the most to spend with its currency, for example "1200 EUR".`
    )
  }
  if (typeof m.currency !== "string") {
    if (callers.length > 0) return
    const options = m.currency === undefined ? "" : `: ${m.currency.map((c) => c).join(" or ")}`
    return result.ask("budget.currency", `Which currency is the budget of ${m.text} in${options}?`)
  }
  const times = m.per === undefined ? 1 : perUnit(m.per)
  if (times === undefined) {
    result.constraints.push({ type: "note", text: `at most ${m.text}` })
    return
  }
  const amount = formatAmount(m.amount, m.currency, times)
  if (amount === "too-large" || amount === "too-precise") {
    return result.ask("budget.amount", `${m.text} cannot be a budget: what is the most to spend, with its currency?`)
  }
  const budget = { amount, currency: m.currency }
  if (callers.some((c) => c.currency === budget.currency && Number(c.amount) <= Number(budget.amount))) return
  if (callers.length > 0 && budgetAnswer === undefined) {
    return result.ask(
      "budget",
      `The request says at most ${amount} ${m.currency} but the budget given is ${
        callers.map((c) => `${c.amount} ${c.currency}`).join(", ")
      }: what is the most to spend?`
    )
  }
  result.constraints.push({ type: "budget", max: budget })
}

const mentionIn = (text: string | undefined) =>
  text === undefined ?
    undefined :
    mentionOf(text.replace(/^in\s+/i, "")) ?? [`1 ${text}`, `${text} 1`, `1 ${text.toUpperCase()}`]
      .map((probe) => readMoney(probe)[0]?.currency).find((c) => c !== undefined)
