import type { ObjectiveKind, QuestionAbout } from "../../schema/Constraint.ts"
import type { Findings } from "./Missing.ts"
import needs from "./Needs.json" with { type: "json" }

/** A fact an objective may need before anything can be proposed (README, "When it asks"). */
export type Fact =
  | "place"
  | "origin"
  | "destination"
  | "pickup"
  | "address"
  | "day"
  | "time"
  | "until"
  | "party"
  | "count"
  | "item"

export type Shape = keyof typeof needs.shapes | ObjectiveKind

/** Words separated by spaces; a hyphen stands for a space or a hyphen ("car-hire"). */
const wordsOf = (list: string) =>
  new RegExp(`\\b(?:${list.split(" ").map((w) => w.replaceAll("-", "[- ]")).join("|")})\\b`, "i")
const shapes = Object.entries(needs.shapes).map(([name, s]) => ({
  name: name as Shape,
  kind: s.kind,
  words: wordsOf(s.words)
}))

/** The shape of an objective: a table, a stay, a rental or a move need more than their kind says. */
export const shapeOf = (kind: ObjectiveKind, request: string): Shape =>
  shapes.find((s) => s.kind === kind && s.words.test(request))?.name ?? kind

const mass = wordsOf(needs.massNouns)
const notPlural = new RegExp(`^(?:${needs.notPlural.replaceAll(" ", "|")})$`, "i")
/** Things bought by the piece with no count: "custom hoodies", not "groceries". */
export const pluralItem = (request: string): string | undefined => {
  const item =
    /\b(?:order|buy|get|purchase)\s+(?:some\s+|me\s+|us\s+)?(?:[\p{L}-]+\s+){0,2}?(\p{Ll}[\p{L}-]*[^s\W]s)\b/iu
      .exec(request)?.[1]
  return item === undefined || mass.test(item) || notPlural.test(item) ? undefined : item
}

const conditions: Record<string, (request: string) => boolean> = {
  tickets: (request) => /\b(?:tickets?|seats?|passes|admissions?)\b/i.test(request),
  plural: (request) => pluralItem(request) !== undefined,
  delivered: (request) =>
    /\b(?:deliver(?:ed|y)?|ship(?:ped)?|post(?:ed)?) to\b|\bdelivered\b|\bsend\b[^.]{0,60}\bto\b/i.test(request)
}

/** What an objective of this shape needs, for this request. */
export const needed = (shape: Shape, request: string): ReadonlyArray<Fact> => {
  const list: ReadonlyArray<string> = shape in needs.shapes ?
    needs.shapes[shape as keyof typeof needs.shapes].needs :
    needs.kinds[shape as ObjectiveKind]
  return list.flatMap((entry) => {
    const [fact, condition] = entry.split(" when ")
    return condition === undefined || conditions[condition]!(request) ? [fact as Fact] : []
  })
}

const generic = wordsOf(needs.generic)
export const isGeneric = (item: string): boolean => generic.test(item)
const hedges = new RegExp(`\\b(?:${needs.hedges})\\b`, "i")
export const hedge = (text: string): RegExpExecArray | null => hedges.exec(text)

/** Asks for each needed fact the reading lacks, each question once, with the words that fell short if any. */
export const askMissing = (
  want: ReadonlyArray<Fact>,
  have: (fact: Fact) => boolean,
  result: Findings,
  why: Partial<Record<Fact, string>> = {}
) => {
  // Neither the day nor the time: one question, answered in one breath ("Friday at 8pm").
  const both = want.includes("day") && want.includes("time") && !have("day") && !have("time")
  for (const fact of want) {
    if (have(fact) || (both && fact === "time")) continue
    const [about, text] = needs.questions[both && fact === "day" ? "day and time" : fact] as [QuestionAbout, string]
    result.ask(about, why[fact] === undefined ? text : `${why[fact]} ${text}`)
  }
}
