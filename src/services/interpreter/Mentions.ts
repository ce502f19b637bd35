import type { QuestionAbout } from "../../schema/Constraint.ts"
import { currencyCodes } from "../../schema/Money.ts"
import { matches } from "../text/Words.ts"
import lexicon from "./Lexicon.json" with { type: "json" }

/** What a span of the request names, by its surface alone, whatever the readers made of it. */
export type MentionKind = "time" | "date" | "amount" | "count" | "place"

export interface Mention {
  readonly kind: MentionKind
  readonly text: string
  /** UTF-16 offsets into the text given. */
  readonly span: readonly [number, number]
}

const codes = [...currencyCodes].join("|")
/** A pattern is case-blind unless it says otherwise (currency codes are capitals: "ALL" is a currency, "all" not). */
type Pattern = string | { readonly source: string; readonly flags: string }
const mentions: Record<MentionKind, ReadonlyArray<Pattern>> = lexicon.mentions
const patterns: ReadonlyArray<readonly [MentionKind, RegExp]> = Object.entries(mentions).flatMap(([kind, list]) =>
  list.map((p) => {
    const { flags, source } = typeof p === "string" ? { source: p, flags: "giu" } : p
    return [kind as MentionKind, new RegExp(source.replaceAll("{codes}", codes), flags)] as const
  })
)

/**
 * Every span that names a time, a date, an amount, a count or a place, found by patterns that know
 * nothing of the readers (Lexicon.json, `mentions`): the Interpreter checks that each one was read
 * into a fact or asked about, so nothing the person wrote is dropped without a word.
 */
export const mentionsIn = (text: string): Array<Mention> =>
  patterns.flatMap(([kind, pattern]) =>
    matches(text, pattern).map((m) => {
      const said = m.groups?.["m"] ?? m[0]
      const start = m.index + m[0].indexOf(said)
      return { kind, text: said, span: [start, start + said.length] as const }
    })
  ).sort((a, b) => a.span[0] - b.span[0])

/** The question a span that was not read asks under. */
export const questionFor: Record<MentionKind, QuestionAbout> = {
  time: "time",
  date: "date",
  amount: "budget",
  count: "quantity",
  place: "location"
}
