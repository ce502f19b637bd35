import type { ConstraintInput, ObjectiveKind, QuestionAbout } from "../../schema/Constraint.ts"
import { questionId } from "../../schema/Constraint.ts"
import type { Answer } from "./Interpreter.ts"
import { collapse } from "./Kinds.ts"
import type { CurrencyMention } from "./MoneyWords.ts"
import { families } from "./MoneyWords.ts"

export const questionOrder: ReadonlyArray<QuestionAbout> = [
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

export const needsDate: ReadonlySet<ObjectiveKind> = new Set(["reservation", "appointment", "transport"])
export const partyWords = new Set([
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

export const noneAnswers = new Set([
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

export const isNoneAnswer = (answer: string) => noneAnswers.has(collapse(answer.toLowerCase()).replace(/[.!]+$/, ""))

export const quoted = (s: string) => {
  const chars = Array.from(collapse(s.toWellFormed()))
  return `"${chars.length > 60 ? `${chars.slice(0, 59).join("")}…` : chars.join("")}"`
}

export const currencyName = (code: string) => {
  try {
    return new Intl.DisplayNames(["en"], { type: "currency" }).of(code) ?? code
  } catch {
    return code
  }
}

export interface Budget {
  readonly amount: string
  readonly currency: string
}

export const sameBudget = (a: Budget, b: Budget) => a.amount === b.amount && a.currency === b.currency

export const compareDecimalStrings = (a: string, b: string): number => {
  const [ai = "", af = ""] = a.split(".")
  const [bi = "", bf = ""] = b.split(".")
  if (ai.length !== bi.length) return ai.length - bi.length
  if (ai !== bi) return ai < bi ? -1 : 1
  const width = Math.max(af.length, bf.length)
  const x = af.padEnd(width, "0")
  const y = bf.padEnd(width, "0")
  return x === y ? 0 : x < y ? -1 : 1
}

export const latestAnswers = (answers: ReadonlyArray<Answer>): Map<string, string> => {
  const latest = new Map<string, string>()
  for (const answer of answers) latest.set(answer.questionId, answer.answer)
  return latest
}

export const id = (about: QuestionAbout) => questionId(about)

export class Findings {
  readonly questions = new Map<QuestionAbout, string>()
  readonly constraints: Array<ConstraintInput> = []

  ask(about: QuestionAbout, text: string, unreadAnswer: string | undefined) {
    if (this.questions.has(about)) return
    const full = unreadAnswer === undefined ? text : `${text} (${quoted(unreadAnswer)} could not be read.)`
    this.questions.set(about, Array.from(full).slice(0, 500).join(""))
  }
}

/** Which currency a mention means, given the currencies of the places and zones the request involves. */
export const resolveCurrency = (
  mention: CurrencyMention,
  context: ReadonlySet<string>
): string | ReadonlyArray<string> => {
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
