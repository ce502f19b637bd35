import type { ObjectiveKind } from "../../schema/Constraint.ts"
import lexicon from "./Lexicon.json" with { type: "json" }

/**
 * Words for each kind, strongest first: a thing named ("dentist", "taxi", "groceries") outweighs a
 * generic noun ("appointment", "tickets", "delivery"), which outweighs a verb ("book", "buy", "send").
 * So "buy train tickets" is transport, "book an appointment for a car service" a service and "send
 * flowers" a purchase. Within a tier the first word said wins.
 */
const tiers: ReadonlyArray<Readonly<Partial<Record<ObjectiveKind, string>>>> = lexicon.kinds
const index: ReadonlyArray<ReadonlyArray<readonly [RegExp, ObjectiveKind]>> = tiers.map((tier) =>
  Object.entries(tier).flatMap(([kind, words]) =>
    words.split(" ").map((w) => [
      new RegExp(`\\b(?:${w.replaceAll("-", "[- ]")})(?:e?s)?(?![\\w'])`, "i"),
      kind as ObjectiveKind
    ])
  )
)

const bookNoun = /\b(?:a|the|this|that|my|her|his|new|good|\d+|two|three|some|cook|children's)\s+books?\b/i
/** "train station", "bus stop", "table tennis": the word names a place or a thing, not the kind. */
const notKind = /\b(?:train|bus|coach|ferry) (?:station|stop|terminal)s?\b|\btable tennis\b|\bhotel (?:bar|lobby)\b/gi
/** Things moved from one place to another are a delivery: "4 boxes of books need to go from A to B". */
const goods =
  /\b(?:box(?:es)?|hampers?|parcels?|packages?|keys|documents|papers|books|lease|envelopes?|letters?|bags?|suitcases?|brochures|samples)\b/i
const moved = /\bfrom\b[^.]{1,120}?\b(?:over )?(?:to|into)\b/i
const bought = /\b(?:buy|order|purchase)\b/i
/** Tickets for a leg of a journey are transport: "2 tickets on the 7:05 from Amsterdam Centraal". */
const leg =
  /\b(?:tickets?|seats?|tix|returns?|singles?)\b[^.]*\b(?:from|to)\b[^.]*\b(?:station|centraal|centrale|termini|hbf|hauptbahnhof|gare|airport)\b|→|\b(?:tickets?|seats?|tix|returns|singles)\b[^.]{0,40}\bfrom \p{Lu}[^.]{0,40}\bto \p{Lu}|\b(?:returns|singles) \p{Lu}\p{L}+ to \p{Lu}/iu
const event =
  /\b(?:concert|match|game|show|gig|festival|museum|theatre|theater|musical|play|exhibition|opera|ballet|derby|final)\b/i

/** The kind, and where the words that decided it are (none for `other`). */
export const readKindAt = (
  text: string
): { readonly kind: ObjectiveKind; readonly span?: readonly [number, number] } => {
  // "from the hotel to the airport": places named, not the thing wanted.
  const blank = (m: string) => " ".repeat(m.length)
  const t = text.replace(notKind, blank).replace(bookNoun, (m) => " gift ".padEnd(m.length))
    .replace(/\b(?:from|to|at|near|in|outside) (?:the|my|our|your|his|her|their) [\w'-]+/gi, blank)
    // "at the Skylight Hotel", "from Cape Town International": a named place, whatever its name says.
    .replace(/\b(?:from|to|at|near|in|outside|into)\s+(?:the\s+)?(?:\p{Lu}[\p{L}'&.-]*(?:\s+|$))+/gu, blank)
  const goodsMoved = goods.exec(text)
  const ride = /\b(?:taxi|cab|uber|lyft|chauffeur|shuttle|pax|passengers?)\b/i.test(text)
  if (goodsMoved !== null && moved.test(text) && !bought.test(text) && !ride) {
    return { kind: "delivery", span: [goodsMoved.index, goodsMoved.index + goodsMoved[0].length] }
  }
  // "get 2 of us into Sketch": places for people at a venue.
  const seats = /\b(?:get|book|fit)\s+(?:\w+\s+){0,2}of us\s+in(?:to)?\b/i.exec(text)
  if (seats !== null) return { kind: "reservation", span: [seats.index, seats.index + seats[0].length] }
  const journey = event.test(text) ? null : leg.exec(text)
  if (journey !== null) return { kind: "transport", span: [journey.index, journey.index + journey[0].length] }
  for (const tier of index) {
    const hits = tier.flatMap(([pattern, kind]) => {
      const m = pattern.exec(t)
      return m === null ? [] : [{ at: m.index, end: m.index + m[0].length, kind }]
    })
    if (hits.length > 0) {
      const hit = hits.reduce((a, b) => (b.at < a.at ? b : a))
      return { kind: hit.kind, span: [hit.at, hit.end] }
    }
  }
  return { kind: "other" }
}

export const readKind = (text: string): ObjectiveKind => readKindAt(text).kind
