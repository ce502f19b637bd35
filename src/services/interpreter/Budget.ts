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
