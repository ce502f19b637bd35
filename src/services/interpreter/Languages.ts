import { fold } from "../text/Words.ts"
import lexicon from "./Lexicon.json" with { type: "json" }
import type { Traced } from "./Text.ts"

const english = { weekday: new Map<string, string>(), month: new Map<string, string>(), forms: new Set<string>() }
const words = lexicon.languages

/**
 * The names of weekdays and months in the languages people write requests in, from CLDR through
 * `Intl` (nothing of our own): "sábado", "jeudi", "Donnerstag", "settembre" are the English names the
 * date reader knows. Portuguese weekdays are also said without "-feira" ("quinta às 14h30").
 */
const names = (): typeof english => {
  if (english.weekday.size > 0) return english
  const week = Array.from({ length: 7 }, (_, i) => new Date(Date.UTC(2026, 0, 4 + i)))
  const year = Array.from({ length: 12 }, (_, i) => new Date(Date.UTC(2026, i, 15)))
  const say = (locale: string, options: Intl.DateTimeFormatOptions) => (d: Date) =>
    new Intl.DateTimeFormat(locale, { ...options, timeZone: "UTC" }).format(d)
  for (const locale of words.locales) {
    week.forEach((d, i) => {
      const said = say(locale, { weekday: "long" })(d).toLowerCase()
      const target = say("en", { weekday: "long" })(week[i]!)
      for (const n of [said, said.replace(/-feira$/, "")]) {
        if (n.length <= 3) continue
        english.weekday.set(fold(n), target)
        english.forms.add(n).add(fold(n))
      }
    })
    year.forEach((d, i) => {
      const said = say(locale, { month: "long" })(d).toLowerCase().replace(/^(?:de |d')/, "")
      if (said.length <= 3) return
      english.month.set(fold(said), say("en", { month: "long" })(year[i]!))
      english.forms.add(said).add(fold(said))
    })
  }
  return english
}

let pattern: RegExp | undefined
const namePattern = () =>
  pattern ??= new RegExp(
    `(?<![\\p{L}])(?:${
      [...names().forms].sort((a, b) => b.length - a.length).map((f) => f.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join("|")
    })(?![\\p{L}])`,
    "giu"
  )

const phrases: Record<string, string> = words.phrases
const phrasePattern = new RegExp(
  `(?<![\\p{L}])(?:${Object.keys(phrases).sort((a, b) => b.length - a.length).join("|")})(?![\\p{L}])`,
  "giu"
)
const atPattern = new RegExp(`(?<![\\p{L}])(?:${words.at})\\s+(?=\\d)`, "giu")

/**
 * A request written in another language, or with its words, made readable for the English date reader:
 * weekday and month names, "today", "tomorrow", "tonight", the word before a clock time ("às",
 * "a las", "um", "kl"), and the words that say which half of the day it is ("de la noche", "abends").
 */
export const toEnglish = (text: Traced): Traced =>
  text.replace(namePattern(), (w) => names().weekday.get(fold(w)) ?? names().month.get(fold(w)) ?? w)
    .replace(phrasePattern, (w) => phrases[w.toLowerCase()] ?? w)
    .replace(atPattern, "at ")
