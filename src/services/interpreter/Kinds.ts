import type { ObjectiveKind } from "../../schema/Constraint.ts"

/**
 * Words for each kind, strongest first: a thing named ("dentist", "taxi", "groceries") outweighs a
 * generic noun ("appointment", "tickets", "delivery"), which outweighs a verb ("book", "buy", "send").
 * So "buy train tickets" is transport, "book an appointment for a car service" a service and "send
 * flowers" a purchase. Within a tier the first word said wins.
 */
const tiers: ReadonlyArray<Readonly<Partial<Record<ObjectiveKind, string>>>> = [
  {
    transport:
      "flights? fly|flying plane airline airfare trains? rail railway taxis? cabs? uber lyft bus coach ferry " +
      "shuttle chauffeur limo limousine eurostar amtrak tgv one-way round-trip return-trip layover",
    reservation:
      "tables? restaurants? dinner lunch brunch breakfast hotels? hostel airbnb accommodation villa resort " +
      "campsite motel inn b&b bnb suite resturant restaraunt restuarant tabel bistro pub cafe trattoria " +
      "car-hire car-rental",
    appointment:
      "dentist doctor doctor's gp physio physiotherapist haircut barber hairdresser salon manicure pedicure " +
      "massage check-?up vet therapist optician vaccination dermatologist nails spa facial interview " +
      "eye-test blood-test hair waxing tattoo",
    service: "plumber electrician cleaner cleaners cleaning mechanic locksmith movers removals handyman painter " +
      "gardener babysitter nanny dog-walker tutor leak leaking leaks broken unblock blocked installation " +
      "car-service mot oil-change install assemble assembly boiler repair repairs repaired fix fixed fixing servicing serviced " +
      "plummer repiar decorator roofer carpenter",
    purchase: "groceries grocery gift gifts present flowers bouquet concert gig festival musical theatre match game " +
      "pizza takeaway takeout cake vouchers? gift-card",
    delivery: "courier parcels? packages? shipping shipment ship postage letter documents"
  },
  {
    reservation: "reservation reservations reservaton booking rental rent stay room rooms nights",
    appointment: "appointment appointments appt apointment session slot class lesson",
    service: "service moving move clean",
    purchase: "tickets? seats? shopping order eggs milk bread wine laptop phone shoes food sofa tv headphones " +
      "coffee",
    delivery: "delivery deliver delivered send pickup pick-up"
  },
  {
    reservation: "book reserve",
    purchase: "buy buying purchase get find",
    service: "help"
  }
]

const index: ReadonlyArray<ReadonlyArray<readonly [RegExp, ObjectiveKind]>> = tiers.map((tier) =>
  Object.entries(tier).flatMap(([kind, words]) =>
    words.split(" ").map((w) => [new RegExp(`\\b(?:${w.replace("-", "[- ]")})(?![\\w'])`, "i"), kind as ObjectiveKind])
  )
)

/** "a book", "2 books" are things to buy; "book a table" is a verb. */
const bookNoun = /\b(?:a|the|this|that|my|her|his|new|good|\d+|two|three|some|cook|children's)\s+books?\b/i

/** "train station", "bus stop", "table tennis": the word names a place or a thing, not the kind. */
const notKind = /\b(?:train|bus|coach|ferry) (?:station|stop|terminal)s?\b|\btable tennis\b|\bhotel (?:bar|lobby)\b/gi

export const readKind = (text: string): ObjectiveKind => {
  // "from the hotel to the airport": places named, not the thing wanted.
  const t = text.replace(notKind, " ").replace(bookNoun, " book-noun gift ")
    .replace(/\b(?:from|to|at|near|in|outside) (?:the|my|our|your|his|her|their) [\w'-]+/gi, " ")
  for (const tier of index) {
    let best: { at: number; kind: ObjectiveKind } | undefined
    for (const [pattern, kind] of tier) {
      const m = pattern.exec(t)
      if (m !== null && (best === undefined || m.index < best.at)) best = { at: m.index, kind }
    }
    if (best !== undefined) return best.kind
  }
  return "other"
}
