import { isTimeZoneName } from "../../schema/Constraint.ts"
import { currencyCodes } from "../../schema/Money.ts"
import type { Found, Place } from "../text/Places.ts"
import { aliases, findPlace, isTerminal, isTown, namedZones, terminalWords, zoneFound } from "../text/Places.ts"
import { fold, matches } from "../text/Words.ts"
import lexicon from "./Lexicon.json" with { type: "json" }

const words = lexicon.placeWords
/** A capitalised word of a name, or a word that can stand in one ("utca", "de", "&"). */
const upper = String.raw`(?!(?:${words.notPlace})(?![\p{L}\d])(?!\s+\p{Lu}))\p{Lu}[\p{L}\d'’.&-]*(?![\p{Sc}\d])`
const inside = `(?:${words.inside})(?=\\s+(?:\\p{Lu}|\\d|(?:${words.inside}|${terminalWords})(?![\\p{L}\\d])))`
const number = String
  .raw`\d+[A-Za-z]?(?=\s*[,)]|\s+\p{Lu}|\s+(?:${words.inside}|into|to|in|and|on|at|by|for|from|near)(?![\p{L}\d])|$)`
/** One name: "Salon Kallio", "12 Rothschild Blvd", "rue Saint-Denis", "Ráday utca 4", "Keflavík airport". */
const name =
  `(?:\\d+(?:st|nd|rd|th|[A-Za-z])?\\s+)?(?:(?:${words.streets})\\s+)?${upper}(?:\\s+(?:${upper}|${number}|${inside}))*` +
  `(?:\\s+(?:${terminalWords}))?`
/** Names joined by commas: "Costes, Ráday utca 4, Budapest". */
const chain = `${name}(?:\\s*,\\s*${name})*`
const placePattern = new RegExp(
  String
    .raw`(?<![\p{L}\d])(in|at|near|around|to|from|towards|into|outside|by|out of|via|on the|reach|→)\s+(the (?:airport|station|train station|city cent(?:re|er)|beach|port|harbou?r|hospital|old town)\b|(?:the\s+)?${chain})`,
  "gu"
)
const vaguePattern =
  /\b(?:in|at|near|to|from|by|around)\s+((?:my|our|your|his|her|their)\s+(?:[a-z]+'s(?:\s+(?:place|house|flat))?|(?:usual|regular|favou?rite|normal|old)\s+[a-z]+|place|house|flat|apartment|office|spot|hotel|work|home)|home|the\s+(?:usual|regular|same)\s+[a-z]+|\p{Lu}[a-z]+'s\s+(?:place|house|flat))(?=[\s,.!?]|$)/gu
/** Capitals that are no place: a currency, a zone, "ASAP"; an airport's code ("JKIA", "JFK") is one. */
const notPlace = new RegExp(`^(?:${words.notPlace}|[A-Z]{2}|${[...currencyCodes].join("|")}|${words.notPlaceCodes})$`)
/** Words that start a sentence without naming anything: "Reserve Chicha, ...", "Taxi to ...". */
const leading = new RegExp(`^(?:(?:${words.leading})(?:\\s+|$))+`, "i")
const personalPattern = new RegExp(words.personal, "giu")
/** A name said right before "to": where a route starts. */
const endsInName = new RegExp(`(${chain})\\s*$`, "u")
/** A name said with no word before it. */
const bareName = new RegExp(`(?<![\\p{L}\\d])${chain}`, "gu")
const role = (prep: string): Place["role"] =>
  ({ from: "from", "out of": "from", to: "to", into: "to", towards: "to", reach: "to", "→": "to" } as const)[
    prep as "to"
  ] ?? "at"
/** "pick up keys at X", "from our printer at X", "drop them at X": where the thing goes from, or to. */
const fromBefore =
  /\b(?:pick(?:ing)?[- ]?up|collect)\b[^.]{0,40}$|\bfrom\s+(?:(?:my|our|his|her|their|the|a)\s+)?[\p{L}' ]{1,30}$/iu
const toBefore = /\b(?:drop(?:ping)?|deliver(?:ing)?|leave)\b[^.]{0,25}$/i

/** The places a text names, after a word that introduces one; a text written all in lower case is read too. */
export const readPlaces = (input: string): Array<Place> => {
  const text = /\p{Ll}/u.test(input) ? input : input.toLowerCase()
  const lowerOnly = !/\p{Lu}/u.test(text.slice(1))
  const source = !lowerOnly ? text : text.replace(/\b(?:in|at|to|from|near)\s+([a-z]+)(?: ([a-z]+))?/g, (all, a, b) => {
    const hit = [`${a} ${b}`, a].find((n) => isTown(n))
    return hit === undefined ? all : all.replace(hit, hit.replace(/\b\p{L}/gu, (c: string) => c.toUpperCase()))
  })
  // "my usual place in Paris", "my office at 5 Main Street": the place that follows says where.
  const vague = matches(source, vaguePattern).filter((m) => {
    const after = source.slice(m.index + m[0].length, m.index + m[0].length + 40)
    const next = /^\s+(?:in|at)\s+(?:\d+\s+)?(\p{Lu}[\p{L}\d]*)/u.exec(after)?.[1]
    return next === undefined || notPlace.test(next)
  })
  // "same hotel as last time", "the place we had our anniversary": known only to the person.
  const personal = matches(source, personalPattern)
  const places: Array<Place> = [...vague, ...personal].map((m) => ({
    text: m[1]!,
    // "from my place": where it starts; "to my sister's": where it goes.
    role: role(/^(\w+)/.exec(m[0])?.[1]?.toLowerCase() ?? ""),
    vague: true,
    span: [m.index + m[0].length - m[1]!.length, m.index + m[0].length]
  }))
  const taken = (start: number, end: number) => places.some((p) => p.span[0] < end && start < p.span[1])
  const add = (text: string, at: number, placeRole: Place["role"], prefix = "") => {
    // A name ends with its sentence: "..., Kigali. Max 15,000 RWF" (an abbreviation's dot does not end it).
    const cleaned = text.replace(/(?<=\p{L}{4,})\.\s+\p{Lu}.*$/su, "").replace(/[\s,.]+$/, "").replace(
      /\s+(?:on|of|&)$/,
      ""
    )
    // A name of more than 120 characters is not a place anyone names.
    if (cleaned === "" || cleaned.length > 120 || taken(at, at + cleaned.length)) return
    const shown = /^(?:near|around|to|from|towards)$/.test(prefix) ? `${prefix} ${cleaned}` : cleaned
    const start = prefix === "" || shown === cleaned ? at : at - prefix.length - 1
    places.push({ text: shown, role: placeRole, vague: false, span: [start, at + cleaned.length] })
  }
  let recipient = -10
  for (const m of matches(source, placePattern)) {
    const [, prep = "", said = ""] = m
    // "at the Curzon Bloomsbury" is the Curzon Bloomsbury; "to the airport" keeps its article.
    const found = said.replace(/^the\s+(?=\p{Lu})/u, "")
    const inVague = vague.some((v) => m.index >= v.index && m.index < v.index + v[0].length)
    const first = /\p{Lu}[\p{L}'.-]*/u.exec(found)?.[0] ?? ""
    // "from Dec 10" is a date; "at TD Garden" a place: a word that is no place starts one only before another name.
    const named = /^\S+\s+\p{Lu}/u.test(found)
    if (inVague || (notPlace.test(first) && !named && aliases[fold(first)] === undefined)) continue
    // "up to 250 GBP", "up to R12 000" are amounts.
    if (/^\d[\d,.' ]*\s*[A-Z]{3}\b|^(?:R|S\/|R\$|[A-Z]{1,3}\$)\s?\d/.test(found)) continue
    if (prep === "to" && /\bup\s+$/i.test(source.slice(0, m.index + m[0].indexOf(prep)))) continue
    if ((prep === "by" && !/^the /.test(said)) || (prep === "on the" && !/^\p{Lu}/u.test(found))) continue
    const at = m.index + m[0].lastIndexOf(found)
    const lead = m.index + m[0].indexOf(prep)
    // "Kandy to Ella", "Medellín → Cartagena": the name before "to" is where the journey starts.
    if (prep === "to" || prep === "→") {
      const before = endsInName.exec(source.slice(0, lead))
      const origin = before?.[1]?.replace(leading, "")
      if (before !== undefined && before !== null && origin !== undefined && origin !== "" && !notPlace.test(origin)) {
        add(origin, lead - before[0].length + before[0].indexOf(origin), "from")
      }
    }
    const before = source.slice(Math.max(0, lead - 60), lead)
    // "to Kate Byrne at 14 Baggot Street": a person, then where the thing goes.
    const end = m.index + m[0].length
    const person = /^\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)?$/u.test(found) && found === said && !isTown(found)
    if (prep === "to" && person && /^\s*,?\s+at\s+(?:\d+\w*\s+)?\p{Lu}/u.test(source.slice(end))) {
      recipient = end
      continue
    }
    const placeRole = prep === "at" && (fromBefore.test(before) && recipient !== lead - 1)
      ? "from"
      : prep === "at" && (toBefore.test(before) || Math.abs(lead - recipient) <= 2)
      ? "to"
      : role(prep)
    const shown = found === said && prep !== "→" && prep !== "reach" ? prep : prep === "→" ? "" : "to"
    add(found, at, placeRole, found === said ? shown : "")
  }
  // Names said without a word before them: "Costes, Ráday utca 4, Budapest: dinner ...",
  // "Keflavík airport car hire", "Malmaison Liverpool": a chain that ends in a town, or a terminal.
  for (const m of matches(source, bareName)) {
    const said = m[0].replace(leading, "").replace(/[\s,.]+$/, "")
    const at = m.index + m[0].indexOf(said)
    const last = said.split(/\s*,\s*/).at(-1)!.split(/\s+/).slice(-2)
    const town = [last.join(" "), last.at(-1)!].some((n) => isTown(n, 50_000)) &&
      (said.includes(",") || last.length > 1)
    const terminal = isTerminal(said)
    // "Book the Sarova Stanley in Nairobi": a name of two words or more, then the town it is in.
    const within = /^\s+in\s+(\p{Lu}[\p{L}'-]+(?: \p{Lu}[\p{L}'-]+)?)/u.exec(source.slice(m.index + m[0].length))?.[1]
    const venue = within !== undefined && isTown(within) && /\s/.test(said) && said !== within
    if (said === "" || notPlace.test(said.split(/\s/)[0]!) || (!town && !terminal && !venue)) continue
    const pickup = /\b(?:pick-?up|pick up|collect(?:ion)?)\s*(?:at|from|:)?\s*$/i.test(source.slice(0, at))
    add(said, at, pickup ? "from" : "at")
  }
  // "..., melb, thurs 7pm": a town or its short name between commas, written in lower case.
  for (const m of matches(source, /(?<=,\s?)([a-z]{3,}(?: [a-z]{3,})?)(?=\s*,)/g)) {
    if (isTown(m[1]!, 100_000) && !taken(m.index, m.index + m[1]!.length)) {
      places.push({ text: m[1]!, role: "at", vague: false, span: [m.index, m.index + m[1]!.length] })
    }
  }
  // A large city needs no "in": "Lisbon, Friday at 8", "a Tokyo hotel".
  for (const m of matches(source, /\b\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)?\b/gu)) {
    const person = /\b(?:with|and|for|dear|to|from|by|at|in|near)\s+$/i.test(
      source.slice(Math.max(0, m.index - 6), m.index)
    )
    if (isTown(m[0], 1_000_000) && !person && !places.some((p) => p.text.includes(m[0]))) {
      places.push({ text: m[0], role: "at", vague: false, span: [m.index, m.index + m[0].length] })
    }
  }
  return places.sort((a, b) => a.span[0] - b.span[0])
}

export const readZoneAnswer = (answer: string): Found | undefined => {
  const named = [...namedZones(answer), ...(isTimeZoneName(answer.trim()) ? [answer.trim()] : [])]
  if (named.length > 0) return zoneFound(named[0]!)
  const places = [answer.replace(/^(?:in|it's|it is)\s+/i, ""), ...readPlaces(answer).map((p) => p.text)]
  return places.map((p) => findPlace(p, answer)).find((f) => f !== undefined)
}
