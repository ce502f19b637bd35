import * as Result from "effect/Result"
import type {
  ConstraintInput,
  Evidence,
  Objective,
  ObjectiveKind,
  Question,
  QuestionAbout
} from "../../schema/Constraint.ts"
import { decodeConstraintInput, questionId } from "../../schema/Constraint.ts"
import type { Place } from "../text/Places.ts"
import { dedupe, quoted } from "../text/Words.ts"
import type { Interpretation, InterpretedConstraint } from "./Interpretation.ts"
import lexicon from "./Lexicon.json" with { type: "json" }
import type { Source, Words } from "./Text.ts"
import { evidenceOf } from "./Text.ts"

const order =
  ("objective event location location.from location.to budget.currency budget budget.amount timezone time date quantity.people " +
    "quantity").split(" ") as ReadonlyArray<QuestionAbout>

/** What a question's answer is read as, to say why an answer that did not settle it was not enough. */
const as: Partial<Record<QuestionAbout, string>> = lexicon.answeredAs

export class Findings {
  readonly constraints: Array<InterpretedConstraint> = []
  private readonly questions = new Map<QuestionAbout, string>()
  private readonly answers: ReadonlyMap<string, string>
  private readonly sources: ReadonlyArray<Source>
  constructor(answers: ReadonlyMap<string, string>, sources: ReadonlyArray<Source>) {
    this.answers = answers
    this.sources = sources
  }

  /** The evidence of some words, in the person's own text: overlapping spans of one text are one span. */
  readonly evidence = (words: ReadonlyArray<Words>): Array<Evidence> => {
    const spans = dedupe(words.flatMap((w) => evidenceOf(this.sources, w))).sort((a, b) =>
      (a.revision ?? 0) - (b.revision ?? 0) || (a.questionId ?? "").localeCompare(b.questionId ?? "") ||
      a.start - b.start
    )
    return spans.reduce<Array<Evidence>>((merged, e) => {
      const last = merged.at(-1)
      if (
        last === undefined || last.revision !== e.revision || last.questionId !== e.questionId || e.start >= last.end
      ) {
        return [...merged, e]
      }
      const source = this.sources.find((s) =>
        s.answer?.revision === e.revision && s.answer?.questionId === e.questionId
      )
      const text = Array.from((source ?? this.sources[0]!).text).slice(last.start, Math.max(last.end, e.end)).join("")
      return [...merged.slice(0, -1), { ...last, end: Math.max(last.end, e.end), text }]
    }, [])
  }

  /** A fact read from some words; one that no words support is not produced. */
  add(constraint: ConstraintInput, words: ReadonlyArray<Words>) {
    const [first, ...rest] = this.evidence(words)
    // Nothing is produced that the Job could not show: every fact is checked against the caller's schema.
    if (first === undefined || Result.isFailure(decodeConstraintInput(constraint))) return
    this.constraints.push({ ...constraint, evidence: [first, ...rest] })
  }
  readonly asks = (about: QuestionAbout) => this.questions.has(about)

  /** A question asked again after an answer says why the answer did not settle it. */
  ask(about: QuestionAbout, text: string) {
    if (this.questions.has(about)) return
    const given = this.answers.get(questionId(about))
    // An answer that gave a fact was read; a question about what it left out says only what is missing.
    const read = this.constraints.some((c) => c.evidence.some((e) => e.questionId === questionId(about)))
    const why = given === undefined || read
      ? ""
      : ` (${quoted(given)} could not be read as ${as[about] ?? "an answer"}.)`
    this.questions.set(about, Array.from(`${text}${why}`).slice(0, 500).join(""))
  }

  /** Words no reader took: their question quotes them, or, when it is already asked, says it too. */
  mention(about: QuestionAbout, words: string) {
    const text = `What does ${quoted(words)} mean here?`
    const asked = this.questions.get(about)
    if (asked === undefined) this.ask(about, text)
    else if (!asked.includes(text)) this.questions.set(about, Array.from(`${asked} ${text}`).slice(0, 500).join(""))
  }

  interpretation(objective: Objective | null): Interpretation {
    const rank = ["budget", "deadline", "window", "location", "quantity", "timezone", "note"]
    const constraints = dedupe(this.constraints, ({ evidence: _, ...c }) => JSON.stringify(c))
      .sort((a, b) => rank.indexOf(a.type) - rank.indexOf(b.type))
    if (this.questions.size === 0 && objective !== null) return { _tag: "Understood", objective, constraints }
    const questions: Array<Question> = order.filter((about) => this.questions.has(about))
      .map((about) => ({ id: questionId(about), text: this.questions.get(about)!, about }))
    return { _tag: "NeedsInput", objective, constraints, questions }
  }

  /**
   * Places only the person knows ("by my sister's", "our regular spot", "home") ask where, unless the
   * caller gave a location; tickets to "the match" ask which match.
   */
  vagueness(
    kind: ObjectiveKind,
    request: string,
    places: ReadonlyArray<Place>,
    caller: ReadonlyArray<ConstraintInput>
  ) {
    const vague = places.find((p) => p.vague)
    if (vague !== undefined && !caller.some((c) => c.type === "location")) {
      this.ask("location", `Where exactly is ${quoted(vague.text)}? Please give its name or address.`)
    }
    const events = "match|game|concert|show|gig|play|event|festival|fight|race"
    const event = new RegExp(`\\b(?:the|that|this) (${events})\\b`, "i").exec(request)
    const named = new RegExp(
      `\\p{Lu}\\p{Ll}+(?:'s)? (?:${events})\\b|\\b(?:${events}) (?:of|by|with|between) \\p{Lu}|\\bvs\\.? `,
      "u"
    )
    if (kind === "purchase" && event !== null && !named.test(request) && this.answers.get("q_event") === undefined) {
      this.ask("event", `Which ${event[1]} do you mean? Please name it (who or what, and where).`)
    }
  }
}
