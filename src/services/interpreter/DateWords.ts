import { Temporal } from "temporal-polyfill"
import { countOf } from "../text/Words.ts"
import { toEnglish } from "./Languages.ts"
import type { Traced } from "./Text.ts"

const months = "January February March April May June July August September October November December".split(" ")
const weekdays = "sunday monday tuesday wednesday thursday friday saturday".split(" ")
const weekday = "(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?"
const month = "(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
export const weekdayOf = (word: string): number =>
  weekdays.findIndex((w) => w.startsWith(word.toLowerCase().slice(0, 3)))

const ordinal = "(\\d{1,2})(?:st|nd|rd|th)"
const th = "(?:st|nd|rd|th)?"
const re = (source: string) => new RegExp(`\\b${source}`, "gi")
const hours = "one two three four five six seven eight nine ten eleven twelve".split(" ")
const hourWord = `(\\d{1,2}|${hours.join("|")})`
const hourOf = (h: string) => countOf(h)!
/** Times said in words, and days said with hours, compiled once. */
const said = {
  halfPast: new RegExp(`\\bhalf past ${hourWord}\\b|(?<=\\bat )half ${hourWord}\\b`, "gi"),
  quarterPast: new RegExp(`\\bquarter past ${hourWord}\\b`, "gi"),
  quarterTo: new RegExp(`\\bquarter to ${hourWord}\\b`, "gi"),
  oClock: new RegExp(`\\b${hourWord}(?::(\\d{2}))?\\s?o'?clock\\b`, "gi"),
  atHour: new RegExp(
    `\\b(at|by|before|from|until|till) (${hours.join("|")})\\b(?= ?(?:[ap]\\.?m|in the|tonight|tomorrow|this|on|$))`,
    "gi"
  ),
  weekdayWeek: new RegExp(`\\b(${weekday}) week\\b`, "gi"),
  dayAtHour: new RegExp(`\\b(${weekday}|today|tomorrow|tonight)\\s+(\\d{1,2})h\\b(?!\\d)`, "gi"),
  dayHours: new RegExp(`\\b(${weekday})\\s+(\\d{1,2})\\s?[-–]\\s?(\\d{1,2})\\b(?![/:.]\\d)`, "gi")
}

/**
 * Rewrites what chrono does not read into what it does, against the local day `today`: "half past 7",
 * "19h30", "the 15th", "Friday the 13th", "between 15 and 17 April", "in a fortnight". A date written
 * "12/03" can be March or December: it becomes a marker the reader asks about, unless one part is above 12.
 */
export const rewrite = (text: Traced, today: Temporal.PlainDate, placeOrder?: boolean): Traced => {
  // "from 28/6 to 2/7": a date that can only be day first says how the others in the request are written.
  const slashes = [...text.text.matchAll(/\b(\d{1,2})\/(\d{1,2})\b/g)].map((m) => [Number(m[1]), Number(m[2])])
  const dayFirst = slashes.some(([a, b]) => a! > 12 && b! <= 12) ?
    true :
    slashes.some(([a, b]) => b! > 12 && a! <= 12) ?
    false :
    placeOrder
  const name = (d: Temporal.PlainDate) => `${d.day} ${months[d.month - 1]} ${d.year}`
  // "the 2nd ... back on the 16th": each day of the month named is on or after the one before it.
  let floor = today
  const nthFrom = (day: number, weekday?: number, lead = ""): string | undefined => {
    for (let k = 0, month = floor.with({ day: 1 }); k < 13; k++, month = month.add({ months: 1 })) {
      const d = day > month.daysInMonth ? undefined : month.with({ day })
      if (d && Temporal.PlainDate.compare(d, floor) >= 0 && (weekday === undefined || d.dayOfWeek % 7 === weekday)) {
        return `${lead}${name(floor = d)}`
      }
    }
    return undefined
  }
  return toEnglish(text)
    .replace(/\b(?:asap|as soon as possible|right now|right away|immediately|straight away)\b/gi, "now")
    .replace(/\b(?:tmrw|tmr|tomorow|tommorow|tomorrrow|2moro)\b/gi, "tomorrow")
    .replace(/\b(?:wednsday|wensday|wedensday|wednesdy)\b/gi, "Wednesday")
    .replace(/\b(?:the )?night of (?=\d|the \d)/gi, "on ")
    .replace(/\b(?:thrusday|thursdy|thurdsay)\b/gi, "Thursday")
    .replace(/\b(?:avant|antes de(?: las?)?|antes das?|vor)\s+(?=\d)/gi, "before ")
    .replace(/\b(\d{1,2})[hu]([0-5]\d)\b/g, "$1:$2")
    .replace(
      said.halfPast,
      (_, a?: string, b?: string) => `${hourOf(a ?? b!)}:30`
    )
    .replace(said.quarterPast, (_, h: string) => `${hourOf(h)}:15`)
    .replace(said.quarterTo, (_, h: string) => `${(hourOf(h) + 11) % 12 || 12}:45`)
    .replace(
      said.oClock,
      (_, h: string, m?: string) => `${hourOf(h)}:${m ?? "00"}`
    )
    .replace(
      said.atHour,
      (_, at: string, h: string) => `${at} ${hourOf(h)}`
    )
    .replace(/\b(\d{1,2})\/(\d{1,2})(?:\/(\d{2}|\d{4}))?\b/g, (all, a: string, b: string, y?: string) => {
      const [x, z] = [Number(a), Number(b)]
      const year = y === undefined ? "" : ` ${y.length === 2 ? `20${y}` : y}`
      if (x > 12 && z >= 1 && z <= 12) return `${x} ${months[z - 1]}${year}`
      if (z > 12 && x >= 1 && x <= 12) return `${z} ${months[x - 1]}${year}`
      if (x === z && x >= 1 && x <= 12) return `${x} ${months[x - 1]}${year}`
      // The place decides the order: "5/6" is 6 May in Chicago and 5 June in Dublin.
      if (dayFirst !== undefined && x >= 1 && x <= 12 && z >= 1 && z <= 12) {
        return dayFirst ? `${x} ${months[z - 1]}${year}` : `${z} ${months[x - 1]}${year}`
      }
      return x >= 1 && x <= 12 && z >= 1 && z <= 12 ? `«${all.replaceAll("/", "⁄")}»` : all
    })
    .replace(/\b(?:a|one) fortnight\b|\bfortnight\b/gi, "2 weeks")
    .replace(/\b(?:the )?day after tomorrow\b|\bovermorrow\b/gi, "in 2 days")
    // "a week from today", "2 weeks today", "a week tomorrow": so many days on.
    .replace(
      /\b(?:in )?(\d|a|one|two|three|four) weeks? (?:from )?(today|tomorrow|now)\b/gi,
      (_, n: string, from: string) => `in ${7 * (countOf(n) ?? 1) + (from.toLowerCase() === "tomorrow" ? 1 : 0)} days`
    )
    // "Monday week": the Monday after the coming one.
    .replace(said.weekdayWeek, (all, w: string) => {
      const ahead = (weekdayOf(w) - (today.dayOfWeek % 7) + 7) % 7 || 7
      return weekdayOf(w) < 0 ? all : `on ${name(today.add({ days: ahead + 7 }))}`
    })
    .replace(
      /\bthe (\d{1,2})(?:st|nd|rd|th)? of next month\b/gi,
      (all, d: string) => {
        const month = today.with({ day: 1 }).add({ months: 1 })
        return Number(d) > month.daysInMonth ? all : `on ${name(month.with({ day: Number(d) }))}`
      }
    )
    // "samedi 8h", "tomorrow 9h": an hour written the French way after a day.
    .replace(said.dayAtHour, "$1 at $2:00")
    // "9 till 2": from the morning into the afternoon.
    .replace(
      /\b([7-9]|1[01])\s?(?:till|til|until|to|[-–])\s?([1-6])\b(?![\d:.,/]|\s*(?:people|persons|guests|kids|[ap]\.?m))/gi,
      (_, a: string, b: string) => `from ${a}:00 to ${Number(b) + 12}:00`
    )
    // "Monday 8-12", "morning 8-12": the hours of that day, or of that part of it.
    .replace(said.dayHours, "$1 from $2 to $3")
    .replace(
      /\b(morning|afternoon|evening|arvo)(s?)\s+(\d{1,2})\s?[-–]\s?(\d{1,2})\b(?![/:.]\d)/gi,
      "$1$2 from $3 to $4"
    )
    .replace(/\bmidday\b/gi, "noon")
    .replace(/\b(?:by |before )?(?:the )?end of (?:the |this )?week\b/gi, "by Sunday")
    .replace(/\b(?:the )?end of (?:the |this )?year\b/gi, `31 December ${today.year}`)
    .replace(
      /\b(at|@|from|until|till|to|before|by|à|a las|um) (\d{1,2})h(\d{2})?\b/gi,
      (_, at, h, m?: string) => `${at} ${h}:${m ?? "00"}`
    )
    .replace(/\bat ([01]\d|2[0-3])([0-5]\d)\b(?!\s+\p{Lu})/gu, "at $1:$2")
    .replace(/\b(\d{1,2}) ?ish\b/gi, "$1")
    // "around 8", "about 7:30": a time said loosely is that time, when nothing counted or priced follows.
    .replace(
      /\b(?:around|about|approx(?:imately)?|roughly|circa|~)\s?(\d{1,2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?)(?!\d|[.,:]\d|\s*(?:%|people|persons|guests|pax|of us|adults|kids|euros?|dollars?|pounds?|bucks|quid|[A-Z]{3}\b|kg|km|mi|min|minutes|hours?|days?|nights?|weeks?|items?|tickets?|bottles?))/gi,
      "at $1"
    )
    .replace(/\b(\d{1,2}(?::\d{2})?) or (\d{1,2}(?::\d{2})?) ?([ap]\.?m\.?)/gi, "$1$3 or $2$3")
    .replace(/\bat (\d{1,2}(?::\d{2})?) or (\d{1,2}(?::\d{2})?)\b(?! ?[ap]\.?m)/gi, "at $1 or at $2")
    .replace(/\bbetween (\d{1,2}(?::\d{2})?(?: ?[ap]m)?) and (\d{1,2}(?::\d{2})?)(?=:| ?[ap]m\b)/gi, "$1 - $2")
    // "between 8 and 12": hours, when nothing counted or priced follows.
    .replace(
      /\bbetween (\d{1,2}) and (\d{1,2})\b(?![:.,]\d|\s*(?:%|people|persons|guests|kg|km|euros?|dollars?|pounds?|[$€£]))/gi,
      "from $1 to $2"
    )
    .replace(re(`(?:from )?(\\d{1,2})${th} (?:to|until|till|-) (\\d{1,2})${th} (${month})`), "$1 - $2 $3")
    .replace(re(`from (\\d{1,2}${th} (?:of )?${month})`), "$1")
    .replace(re(`(${month}),\\s*(?=\\d)`), "$1; ")
    .replace(/\b29(?:th)? (?:of )?feb(?:ruary)?\b(?!,? \d{4})/gi, () => {
      let year = today.month > 2 ? today.year + 1 : today.year
      while (!(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) year++
      return `29 February ${year}`
    })
    .replace(re(`between (?:the )?(\\d{1,2})${th} and (?:the )?(\\d{1,2}${th})(?= (?:of )?${month})`), "$1 - $2")
    .replace(
      re(`(${weekday}),? (?:the )?${ordinal}(?! (?:of )?${month})\\b`),
      (all, w, d) => nthFrom(+d, weekdayOf(w)) ?? all
    )
    .replace(
      re(`(?:on )?the ${ordinal}(?! (?:of )?${month})\\b`),
      (all, d) => nthFrom(+d, undefined, "on ") ?? all
    )
}

export const dayParts = (text: string): { am: boolean; pm: boolean; lunch: boolean } => ({
  am: /\b(?:morning|breakfast|brunch|a\.m\.|am)\b/i.test(text),
  pm: /\b(?:evening|tonight|night|dinner|supper|afternoon|p\.m\.|pm)\b/i.test(text),
  lunch: /\blunch\b/i.test(text)
})

export const isThisWeekday = (text: string) => new RegExp(`\\b(?:this|today|coming) ${weekday}\\b`, "i").test(text)
