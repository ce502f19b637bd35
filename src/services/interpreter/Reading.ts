import type { Hint, WhenReading } from "./DateWords.ts"
import type { CurrencyMention } from "./MoneyWords.ts"
import type { Decimal } from "./Numbers.ts"
import type { Token } from "./Tokens.ts"

// ---------------------------------------------------------------------------------------------------
// The reader.

export interface MoneyReading {
  readonly amount: Decimal | "ambiguous"
  readonly currency: CurrencyMention | undefined
  readonly perUnit: boolean
  readonly text: string
}

interface QuantityReading {
  readonly count: number | "too-large"
  readonly unit: string | undefined
}

interface PlaceReading {
  readonly place: string
  readonly zone: string | undefined
  readonly currency: string | undefined
}

export interface Reading {
  readonly money: Array<MoneyReading>
  /** A currency named apart from any number ("budget 200, in euros"). */
  readonly currencies: Array<CurrencyMention>
  readonly whens: Array<WhenReading>
  readonly zones: Array<string>
  readonly places: Array<PlaceReading>
  readonly quantities: Array<QuantityReading>
  readonly hints: Set<Hint>
  /** A reading that needs the budget restated ("per person", a budget word with no readable amount). */
  readonly noBudget: boolean
  readonly words: number
}

export const budgetCues = new Set([
  "under",
  "below",
  "max",
  "maximum",
  "most",
  "budget",
  "spend",
  "within",
  "cap",
  "limit"
])
/** Words that may follow a bare amount without making it a count of something ("under 200 on a gift"). */
export const moneyFollowers = new Set([
  "and",
  "or",
  "for",
  "please",
  "total",
  "tops",
  "on",
  "in",
  "at",
  "to",
  "with",
  "by",
  "each",
  "per",
  "max",
  "maximum",
  "including",
  "incl",
  "all",
  "overall",
  "altogether",
  "but",
  "so",
  "if",
  "the",
  "a",
  "an",
  "this",
  "next",
  "tomorrow",
  "today",
  "tonight"
])
export const minimumCues = new Set(["over", "above", "least", "min", "minimum", "from", "starting"])
export const perUnitWords = new Set([
  "person",
  "head",
  "night",
  "day",
  "ticket",
  "piece",
  "kg",
  "item",
  "hour",
  "guest",
  "adult",
  "room",
  "seat",
  "pax",
  "unit"
])
export const peopleWords = new Set([
  "people",
  "persons",
  "person",
  "ppl",
  "pax",
  "guests",
  "guest",
  "diners",
  "colleagues",
  "friends",
  "coworkers"
])
/** Counts that say how many people come, without being "people". */
export const partyUnits = new Set(["adults", "adult", "children", "kids", "child"])
export const containerWords = new Set([
  "bottle",
  "bottles",
  "box",
  "boxes",
  "pack",
  "packs",
  "packet",
  "packets",
  "bag",
  "bags",
  "can",
  "cans",
  "carton",
  "cartons",
  "jar",
  "jars",
  "kg",
  "kilos",
  "kilograms",
  "lbs",
  "litres",
  "liters",
  "loaves",
  "loaf",
  "pieces",
  "slices",
  "cups",
  "dozen",
  "pairs",
  "pair",
  "crates",
  "bunches",
  "bunch"
])
export const unitAdjectives = new Set([
  "large",
  "small",
  "medium",
  "big",
  "extra",
  "fresh",
  "red",
  "white",
  "black",
  "green",
  "blue",
  "yellow",
  "pink",
  "free-range",
  "organic",
  "single",
  "double",
  "twin",
  "adult",
  "economy",
  "business",
  "vip",
  "return",
  "one-way",
  "train",
  "plane",
  "flight",
  "bus",
  "concert",
  "movie",
  "cinema",
  "theatre",
  "theater",
  "museum",
  "ceiling",
  "birthday",
  "hotel",
  "king",
  "queen",
  "sparkling",
  "rosé"
])
export const notUnits = new Set([
  "am",
  "pm",
  "th",
  "st",
  "nd",
  "rd",
  "o'clock",
  "of",
  "and",
  "or",
  "to",
  "in",
  "at",
  "on",
  "by",
  "for",
  "per",
  "x",
  "times",
  "more",
  "less",
  "percent",
  "star",
  "stars",
  "the",
  "a",
  "an",
  "is",
  "are",
  "was",
  "h",
  "k",
  "m",
  "km",
  "mi",
  "miles",
  "min",
  "mins",
  "hrs",
  "hr",
  "years",
  "year",
  "yo",
  "old",
  "with",
  "from",
  "until",
  "till",
  "p",
  "people's",
  "if",
  "but",
  "so",
  "or",
  "nights'"
])

// English, and the commonest of Portuguese, Spanish, French and German ("em Lisboa", "nach Berlin").
export const placePrepositions = new Set([
  "in",
  "at",
  "near",
  "around",
  "to",
  "from",
  "towards",
  "into",
  "em",
  "en",
  "à",
  "nach"
])
export const keptPrepositions = new Set(["near", "around", "to", "from", "towards"])
export const placeNouns = new Set([
  "station",
  "airport",
  "street",
  "st",
  "road",
  "rd",
  "avenue",
  "ave",
  "square",
  "park",
  "beach",
  "centre",
  "center",
  "city",
  "downtown",
  "market",
  "bridge",
  "district",
  "mall",
  "terminal",
  "port",
  "harbour",
  "harbor",
  "hospital",
  "university",
  "campus",
  "office",
  "old",
  "town"
])
export const placeConnectors = new Set([
  "de",
  "do",
  "da",
  "dos",
  "das",
  "del",
  "della",
  "di",
  "du",
  "la",
  "le",
  "les",
  "am",
  "an",
  "der",
  "von",
  "upon",
  "sur",
  "y",
  "el",
  "al",
  "of",
  "&"
])
export const notPlaces = new Set([
  "i",
  "i'm",
  "i'd",
  "i'll",
  "please",
  "today",
  "tonight",
  "tomorrow",
  "next",
  "this",
  "mr",
  "mrs",
  "ms",
  "dr",
  "mum",
  "mom",
  "dad",
  "mother",
  "father",
  "grandma",
  "grandpa",
  "english",
  "portuguese",
  "spanish",
  "french",
  "german",
  "italian",
  "japanese",
  "chinese",
  "christmas",
  "easter",
  "asap",
  "noon",
  "midnight",
  "am",
  "pm",
  "utc",
  "gmt",
  "my",
  "our",
  "a",
  "an",
  "it",
  "least",
  "most",
  "home",
  "work",
  "end",
  "time",
  "once"
])

export const isCapitalised = (token: Token | undefined) =>
  token !== undefined && token.kind === "word" && token.text[0] !== token.lower[0]
