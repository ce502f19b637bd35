import type { ConstraintInput, Objective, ObjectiveKind, Question, QuestionAbout } from "../../schema/Constraint.ts"
import { questionId } from "../../schema/Constraint.ts"
import type { Interpretation } from "./Interpreter.ts"
import type { Place } from "./Places.ts"
import { dedupe, quoted } from "./Words.ts"

const order = ("objective event location budget.currency budget budget.amount timezone time date quantity.people " +
  "quantity").split(" ") as ReadonlyArray<QuestionAbout>

/** What a question's answer is read as, to say why an answer that did not settle it was not enough. */
const as: Partial<Record<QuestionAbout, string>> = {
  date: "a date",
  time: "a time",
  timezone: "a time zone",
  location: "a place",
  budget: "an amount",
  "budget.amount": "an amount",
  "budget.currency": "a currency",
  "quantity.people": "a number of people",
  quantity: "a number"
}

/** The constraints read so far and the questions still open. */
export class Findings {
  readonly constraints: Array<ConstraintInput> = []
  private readonly questions = new Map<QuestionAbout, string>()
  private readonly answers: ReadonlyMap<string, string>
  constructor(answers: ReadonlyMap<string, string>) {
    this.answers = answers
  }

  asks(about: QuestionAbout) {
    return this.questions.has(about)
  }

  /** A question asked again after an answer says why the answer did not settle it. */
  ask(about: QuestionAbout, text: string) {
    if (this.questions.has(about)) return
    const given = this.answers.get(questionId(about))
    const why = given === undefined ? "" : ` (${quoted(given)} could not be read as ${as[about] ?? "an answer"}.)`
    this.questions.set(about, Array.from(`${text}${why}`).slice(0, 500).join(""))
  }

  interpretation(objective: Objective | null): Interpretation {
    const rank = ["budget", "deadline", "window", "location", "quantity", "timezone", "note"]
    const constraints = dedupe(this.constraints).sort((a, b) => rank.indexOf(a.type) - rank.indexOf(b.type))
    if (this.questions.size === 0 && objective !== null) return { _tag: "Understood", objective, constraints }
    const questions: Array<Question> = order.filter((about) => this.questions.has(about))
      .map((about) => ({ id: questionId(about), text: this.questions.get(about)!, about }))
    return { _tag: "NeedsInput", objective, constraints, questions }
  }

  /**
   * What each kind of objective cannot go without (README, "When the Interpreter asks"): a place where
   * the thing happens for reservations, journeys and deliveries; the party's size for a table; which
   * event, for tickets to "the match".
   */
  needs(
    kind: ObjectiveKind,
    request: string,
    known: ReadonlyArray<Place>,
    places: ReadonlyArray<Place>,
    callerPlaces: ReadonlyArray<Place>,
    caller: ReadonlyArray<ConstraintInput>
  ) {
    const vague = places.find((p) => p.vague)
    const atHome = /\b(?:my|our) (?:place|house|flat|apartment|home|office)\b/i.test(vague?.text ?? "")
    if (vague !== undefined && callerPlaces.length === 0 && !(kind === "service" && atHome)) {
      this.ask("location", `Where exactly is ${vague.text}? Please give the place's name or address, and the city.`)
    }
    const needsPlace = kind === "reservation" || kind === "transport" || kind === "delivery"
    const hasZone = caller.some((c) => c.type === "timezone") && kind !== "transport" && kind !== "delivery"
    if (needsPlace && known.length === 0 && callerPlaces.length === 0 && vague === undefined && !hasZone) {
      this.ask(
        "location",
        kind === "transport"
          ? "Where from, and where to?"
          : kind === "delivery"
          ? "Where should it go? Please give the address or the city."
          : "Where? Please give the city, or the place's name."
      )
    }
    const event = /\b(?:the|that|this) (match|game|concert|show|gig|play|event|festival|fight|race)\b/i.exec(request)
    if (
      kind === "purchase" && event !== null && this.answers.get("q_event") === undefined &&
      !/\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)*(?:'s)? (?:match|game|concert|show|gig|play|event|festival|fight|race)\b|\b(?:match|game|concert|show|gig|play|event|festival|fight|race) (?:of|by|with|between) \p{Lu}|\bvs\.? /u
        .test(request)
    ) {
      this.ask("event", `Which ${event[1]} do you mean? Please name it (who or what, and where).`)
    }
  }
}
