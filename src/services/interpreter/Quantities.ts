import type { ConstraintInput } from "../../schema/Constraint.ts"
import { quantityMax } from "../../schema/Constraint.ts"
import { countOf, countPattern, matches } from "../text/Words.ts"
import type { Findings } from "./Missing.ts"
import type { Words } from "./Text.ts"

export interface Count {
  readonly count: number
  /** "people" for the party; the thing counted otherwise ("train tickets", "bottles of red wine"). */
  readonly unit: string
  readonly span: readonly [number, number]
}

const peopleNouns =
  "people|persons|person|ppl|pax|guests|diners|adults|of us|colleagues|friends|coworkers|co-workers|passengers|travellers|travelers|kids|children|guys|personas|pessoas|personnes|personen|persone|personer|osób|osoby|orang|kişi"
const notUnits =
  /^(?:am|pm|a\.m\.|p\.m\.|hours?|hrs?|minutes?|mins?|days?|weeks?|months?|years?|o'clock|h|stars?|percent|km|miles?|times|more|less|or|and|to|at|in|on|by|for|of|the|a|an|is|are|was|with|from|until|till|per|each|x|dollars?|euros?|pounds?|bucks|yen)$/
const stops =
  /^(?:under|below|for|at|in|to|from|and|or|by|on|with|next|this|tomorrow|today|tonight|please|max|budget|between|within|before|after|around|near|each|per|that|which|who|up|no|than|in)$/

export const readCounts = (text: string): Array<Count> => {
  const counts: Array<Count> = []
  const taken: Array<number> = []
  const lead =
    "(?:table|party|group|family|booking|reservation|dinner|lunch|brunch|breakfast|room|seats?|mesa|tavolo|tisch) (?:for|of|para|pour|per|für) "
  const people = new RegExp(
    `\\b(${lead}|(?:for|we are|we're|there are|there will be|there'll be) )?(${countPattern})(?: (${peopleNouns}))?\\b(?: and (${countPattern}) (?:kids|children|child))?`,
    "gi"
  )
  // "me and three friends", "me and two mates": the person and the others.
  const company = new RegExp(
    `\\b(?:me|myself|i) (?:and|\\+|plus) (${countPattern}) (?:friends|mates|others|colleagues|guests|buddies|pals)\\b`,
    "i"
  )
    .exec(text)
  if (company !== null) {
    counts.push({
      count: (countOf(company[1]!) ?? 0) + 1,
      unit: "people",
      span: [company.index, company.index + company[0].length]
    })
    taken.push(company.index + company[0].indexOf(company[1]!))
  }
  // "just me, Riya and Kabir": the person and each one named.
  const named = /\b(?:just |only )?(?:me|myself)((?:\s*,\s*\p{Lu}\p{Ll}+)*)\s*,?\s*(?:and|&)\s+\p{Lu}\p{Ll}+/u.exec(
    text
  )
  if (named !== null) {
    const others = named[1]!.split(",").filter((n) => n.trim() !== "").length + 1
    counts.push({ count: others + 1, unit: "people", span: [named.index, named.index + named[0].length] })
  }
  for (const m of matches(text, people)) {
    const [, introduced, number = "", noun, kids] = m
    if (taken.includes(m.index + m[0].indexOf(number))) continue
    const next = text.slice(m.index + m[0].length, m.index + m[0].length + 30).trimStart()
    const bare = introduced === undefined || (/^[a-z]/.test(next) && !stops.test(next.split(/\W/)[0] ?? "")) ||
      /^(?:\d|am\b|pm\b|:\d|\.\d)/i.test(next)
    if (noun === undefined && bare) continue
    const count = (countOf(number) ?? 0) + (kids === undefined ? 0 : countOf(kids) ?? 0)
    if (count > 0) {
      counts.push({ count, unit: "people", span: [m.index + (introduced?.length ?? 0), m.index + m[0].length] })
    }
    taken.push(m.index + m[0].indexOf(number), ...(kids === undefined ? [] : [m.index + m[0].lastIndexOf(kids)]))
  }
  const two =
    /\b(?:me and my (?:wife|husband|partner|girlfriend|boyfriend|friend|mum|mom|dad)|my (?:wife|husband|partner) and (?:me|i)|the two of us|for two of us|we(?:'re| are) a couple)\b/i
      .exec(text)
  if (two !== null) counts.push({ count: 2, unit: "people", span: [two.index, two.index + two[0].length] })
  for (const m of matches(text, new RegExp(String.raw`\b(${countPattern}) ([a-z][a-z' -]*)`, "gi"))) {
    const count = countOf(m[1]!)
    if (taken.includes(m.index) || count === undefined || count < 1 || (count === 1 && !/^\d/.test(m[1]!))) continue
    const words = m[2]!.split(" ")
    const cut = words.findIndex((w) => stops.test(w) || (notUnits.test(w) && w !== "of"))
    const head = words.slice(0, cut < 0 ? words.length : cut)
    const noun = head.findIndex((w, i) => i < 3 && w !== "of" && (count === 1 || /s$|^(?:kg|g|lb|oz|ml|l)$/.test(w)))
    if (noun < 0 || head.slice(0, noun).includes("of")) continue
    const tail = head[noun + 1] === "of" ? head.slice(noun + 1, noun + 5) : []
    const unit = [...head.slice(0, noun + 1), ...tail].join(" ")
    counts.push({ count, unit, span: [m.index, m.index + m[1]!.length + 1 + unit.length] })
  }
  return counts
}

/** A count read, with its words. */
export type CountRead = Count & { readonly words: ReadonlyArray<Words> }

/** One count per unit (two different ones are asked about), an answer's replacing the request's. */
export const decideCounts = (
  own: ReadonlyArray<CountRead>,
  answered: ReadonlyArray<
    { readonly q: string; readonly text: string; readonly words: Words; readonly counts: ReadonlyArray<CountRead> }
  >,
  caller: ReadonlyArray<ConstraintInput>,
  result: Findings,
  /** What "how many?" asked about, if anything: "tickets", "hoodies". */
  asked?: string
): Map<string, { readonly count: number; readonly words: ReadonlyArray<Words> }> => {
  const byUnit = new Map<string, Array<{ readonly count: number; readonly words: ReadonlyArray<Words> }>>()
  for (const c of own) byUnit.set(c.unit, [...(byUnit.get(c.unit) ?? []), c])
  for (const a of answered) {
    for (const c of a.counts) byUnit.set(a.q === "q_quantity_people" ? "people" : c.unit, [c])
    // "3", to "how many tickets? The request says 2 and 4": the count the question was about, for a
    // unit read with counts that disagree (one read twice alike, "a dozen eggs ... a dozen eggs", was not asked).
    const bare = a.q === "q_quantity" && a.counts.length === 0 ? countOf(a.text.replace(/[.!]+$/, "")) : undefined
    let settled = false
    for (const [unit, n] of byUnit) {
      if (bare !== undefined && unit !== "people" && new Set(n.map((c) => c.count)).size > 1) {
        byUnit.set(unit, [{ count: bare, words: [a.words] }])
        settled = true
      }
    }
    // "3", to "how many?" about tickets or things the request named but did not count.
    if (bare !== undefined && !settled && asked !== undefined) byUnit.set(asked, [{ count: bare, words: [a.words] }])
  }
  const callers = caller.filter((c): c is Extract<ConstraintInput, { type: "quantity" }> => c.type === "quantity")
  const kept = new Map<string, { readonly count: number; readonly words: ReadonlyArray<Words> }>()
  for (const [unit, read] of byUnit) {
    const distinct = [...new Set(read.map((c) => c.count))]
    const about = unit === "people" ? "quantity.people" : "quantity"
    // A caller's count with no unit counts what the request counts, when it counts one thing only.
    const only = byUnit.size === 1
    const given = callers.filter((c) =>
      (c.unit ?? "people") === unit || (c.unit === undefined && (unit === "people" || only))
    )
    if (distinct.length > 1) {
      if (given.length === 0) result.ask(about, `How many ${unit}? The request says ${distinct.join(" and ")}.`)
      continue
    }
    // More than any request asks for: a slip, asked about rather than kept.
    if (distinct[0]! > quantityMax) {
      if (given.length === 0) result.ask(about, `How many ${unit}? ${distinct[0]} is more than we can arrange.`)
      continue
    }
    kept.set(unit, { count: distinct[0]!, words: read.flatMap((c) => c.words) })
    if (given.some((c) => c.count === distinct[0])) continue
    const said = `The request says ${distinct[0]} ${unit} but ${
      given.map((c) => c.count).join(", ")
    } was given: how many?`
    if (given.length > 0 && !answered.some((a) => a.counts.length > 0)) result.ask(about, said)
    else result.add({ type: "quantity", count: distinct[0]!, unit }, read.flatMap((c) => c.words))
  }
  for (const c of callers) {
    if (!kept.has(c.unit ?? "people")) kept.set(c.unit ?? "people", { count: c.count, words: [] })
  }
  return kept
}
