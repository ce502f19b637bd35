import type { ObjectiveKind } from "../../schema/Constraint.ts"
import { summaryMaxLength } from "../../schema/Constraint.ts"
import type { TimeSpec } from "./DateWords.ts"
import { wordNumber } from "./Numbers.ts"
import type { Token } from "./Tokens.ts"

export const nowTime: TimeSpec = { start: -1, ambiguous: false, text: "now" }

// ---------------------------------------------------------------------------------------------------
// Objective.

type Strength = "strong" | "weak"
const kindWords: ReadonlyArray<readonly [ObjectiveKind, Strength, ReadonlyArray<string>]> = [
  ["transport", "strong", [
    "flight",
    "flights",
    "fly",
    "flying",
    "plane",
    "airline",
    "airfare",
    "train",
    "trains",
    "rail",
    "railway",
    "taxi",
    "taxis",
    "cab",
    "uber",
    "lyft",
    "ride",
    "bus",
    "coach",
    "ferry",
    "shuttle",
    "flght",
    "fligth",
    "fligt",
    "flihgt",
    "trian",
    "taxy",
    "chauffeur",
    "limo",
    "limousine",
    "boarding",
    "layover",
    "round-trip",
    "roundtrip",
    "one-way",
    "tgv",
    "eurostar",
    "amtrak",
    "voo",
    "vuelo",
    "vol",
    "flug",
    "comboio",
    "tren",
    "zug"
  ]],
  ["transport", "weak", ["transfer", "trip", "drive", "pickup", "pick-up", "lift", "return", "travel"]],
  ["reservation", "strong", [
    "table",
    "restaurant",
    "restaurants",
    "dinner",
    "lunch",
    "brunch",
    "hotel",
    "hotels",
    "hostel",
    "airbnb",
    "accommodation",
    "accomodation",
    "villa",
    "resort",
    "campsite",
    "resturant",
    "restaraunt",
    "restuarant",
    "restarant",
    "resto",
    "reservation",
    "reservations",
    "reservaton",
    "reservasion",
    "hotell",
    "tabel",
    "bnb",
    "b&b",
    "motel",
    "inn",
    "rental",
    "suite",
    "mesa",
    "restaurante",
    "jantar",
    "cena",
    "dîner",
    "hôtel",
    "quarto",
    "habitación"
  ]],
  ["reservation", "weak", [
    "book",
    "booking",
    "reserve",
    "rent",
    "stay",
    "room",
    "rooms",
    "nights",
    "night",
    "reservar",
    "réserver",
    "reservieren"
  ]],
  ["appointment", "strong", [
    "appointment",
    "appointments",
    "appt",
    "apointment",
    "appointmnet",
    "dentist",
    "doctor",
    "gp",
    "physio",
    "physiotherapist",
    "haircut",
    "barber",
    "hairdresser",
    "salon",
    "manicure",
    "pedicure",
    "massage",
    "checkup",
    "check-up",
    "vet",
    "therapist",
    "consultation",
    "optician",
    "vaccination",
    "vaccine",
    "dermatologist",
    "nails",
    "spa",
    "facial",
    "interview"
  ]],
  ["service", "strong", [
    "repair",
    "repairs",
    "repaired",
    "plumber",
    "electrician",
    "cleaner",
    "cleaners",
    "cleaning",
    "installation",
    "install",
    "installed",
    "mechanic",
    "locksmith",
    "movers",
    "removals",
    "handyman",
    "painter",
    "gardener",
    "babysitter",
    "nanny",
    "dog-walker",
    "tutor",
    "servicing",
    "leak",
    "leaking",
    "broken",
    "unblock",
    "replace",
    "replacement",
    "assemble",
    "assembly",
    "fixed",
    "repiar",
    "plummer"
  ]],
  ["service", "weak", ["fix", "fixing", "clean", "service", "help"]],
  ["purchase", "strong", [
    "buy",
    "buying",
    "purchase",
    "groceries",
    "grocery",
    "gift",
    "gifts",
    "present",
    "flowers",
    "bouquet",
    "shopping",
    "tickets",
    "ticket",
    "concert",
    "pizza",
    "takeaway",
    "takeout",
    "groceris",
    "eggs",
    "milk",
    "bread",
    "wine",
    "laptop",
    "phone",
    "shoes",
    "book",
    "books"
  ]],
  ["purchase", "weak", ["order", "get", "shop", "pick", "find", "comprar", "acheter", "kaufen", "compra"]],
  ["delivery", "strong", [
    "courier",
    "parcel",
    "parcels",
    "package",
    "packages",
    "shipping",
    "ship",
    "shipment",
    "post",
    "mail"
  ]],
  ["delivery", "weak", ["send", "deliver", "delivery", "delivered", "move", "moving"]]
]

/** Words that belong to a place or a thing of another kind ("train station", "ticket" for a flight). */
const kindAfter: Record<string, ReadonlyArray<string>> = {
  train: ["station"],
  bus: ["stop", "station"],
  taxi: ["rank"],
  book: [],
  table: ["tennis"]
}

const bookDeterminers = new Set([
  "a",
  "the",
  "this",
  "that",
  "my",
  "his",
  "her",
  "their",
  "some",
  "new",
  "good",
  "cook",
  "children's",
  "kids",
  "old",
  "rare",
  "signed"
])

let kindIndex: Map<string, readonly [ObjectiveKind, Strength]> | undefined

const getKindIndex = () => {
  if (kindIndex !== undefined) return kindIndex
  kindIndex = new Map()
  for (const [kind, strength, words] of kindWords) {
    for (const word of words) {
      if (!kindIndex.has(`${word}/${strength}`)) kindIndex.set(`${word}/${strength}`, [kind, strength])
    }
  }
  return kindIndex
}

export const readKind = (tokens: ReadonlyArray<Token>): ObjectiveKind => {
  const index = getKindIndex()
  let weak: ObjectiveKind | undefined
  for (let i = 0; i < tokens.length; i++) {
    const w = tokens[i]!.lower
    if (tokens[i]!.kind !== "word") continue
    const blocked = kindAfter[w]
    if (blocked !== undefined && blocked.includes(tokens[i + 1]?.lower ?? "")) continue
    // "book" is a noun after a determiner or a number ("a book", "2 books") and a verb elsewhere.
    if (w === "book" || w === "books") {
      const before = tokens[i - 1]
      const noun = before !== undefined &&
        (before.kind === "num" || wordNumber(before.lower) !== undefined || bookDeterminers.has(before.lower))
      if (!noun) {
        weak ??= "reservation"
        continue
      }
    }
    const strong = index.get(`${w}/strong`)
    if (strong !== undefined) {
      // "a plane ticket": the ticket is the transport's.
      if (strong[0] === "purchase" && ["ticket", "tickets"].includes(w) && weak === undefined) {
        const next = tokens.slice(i + 1, i + 5).map((t) => t.lower)
        if (next.some((n) => index.get(`${n}/strong`)?.[0] === "transport")) continue
      }
      return strong[0]
    }
    const weakKind = index.get(`${w}/weak`)
    if (weakKind !== undefined) weak ??= weakKind[0]
  }
  return weak ?? "other"
}

export const collapse = (s: string) => s.replace(/\s+/gu, " ").trim()

export const summarise = (text: string): string => {
  const chars = Array.from(collapse(text.toWellFormed()))
  if (chars.length <= summaryMaxLength) return chars.join("")
  const cut = chars.slice(0, summaryMaxLength - 1).join("")
  const lastSpace = cut.lastIndexOf(" ")
  return `${(lastSpace > summaryMaxLength / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`
}
