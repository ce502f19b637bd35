import * as chrono from "chrono-node/en"
import { Temporal } from "temporal-polyfill"
import type { ObjectiveKind } from "../../schema/Constraint.ts"
import { currencyCodes } from "../../schema/Money.ts"
import { countOf } from "../text/Words.ts"
import { dayParts, isThisWeekday, rewrite } from "./DateWords.ts"
import { combine } from "./Moments.ts"
import { Traced, wordsOf } from "./Text.ts"
import type { Conventions, When } from "./When.ts"

type Local = Temporal.PlainDateTime

const atMinute = (t: Local) => t.with({ second: 0, millisecond: 0, microsecond: 0, nanosecond: 0 })
/** Which half of the day "at 7" means, where the kind of objective or a day-part word says so. */
export const meridiem = (context: string, kind: ObjectiveKind) => {
  const { am, lunch, pm } = dayParts(context)
  const table = kind === "reservation" && /\b(?:table|restaurant|dinner|bar|pub|bistro)\b/i.test(context)
  const business = ["appointment", "service", "delivery", "purchase"].includes(kind)
  return (h: number): "am" | "pm" | undefined => {
    if (am !== pm) return am ? "am" : "pm"
    // A business at 8 to 11 is the morning and at 12 to 5 the afternoon; at 6 or 7 it could be either.
    if (lunch || business) return h >= (lunch ? 11 : 8) ? "am" : h <= (lunch ? 4 : 5) ? "pm" : undefined
    return table && h !== 11 ? "pm" : undefined
  }
}

const componentsOf = (c: { get: (component: "year" | "month" | "day" | "hour" | "minute") => number | null }): Local =>
  new Temporal.PlainDateTime(c.get("year")!, c.get("month")!, c.get("day")!, c.get("hour") ?? 0, c.get("minute") ?? 0)

/** The times named, against `now` on the place's clock, and the rewritten text the other readers read. */
export const readDates = (
  input: Traced | string,
  now: Local,
  kind: ObjectiveKind,
  context = input.toString(),
  place: Conventions = {}
) => {
  const traced = rewrite(typeof input === "string" ? Traced.of(input, 0) : input, now.toPlainDate(), place.dayFirst)
  const text = traced.text
  // "17:30" or "07:10" anywhere says the clock is a 24-hour one, and so is "8:40" in the place's own way of writing.
  const twentyFour = /\b(?:0\d|1[3-9]|2[0-3])[:.][0-5]\d\b/.test(text)
  const reference = { instant: new Date(Date.UTC(now.year, now.month - 1, now.day, now.hour, now.minute)), timezone: 0 }
  const today = now.toPlainDate().toPlainDateTime()
  const halfDay = meridiem(context, kind)
  const whens: Array<When> = [...text.matchAll(/«([^»]*)»/g)].map((m) => ({
    ...{ from: today, to: today, deadline: false, clock: false, part: "day", problem: "ambiguous" } as const,
    text: m[1]!.replaceAll("⁄", "/"),
    span: [m.index, m.index + m[0].length],
    words: [wordsOf(traced, m.index, m.index + m[0].length)]
  }))
  // chrono's cost grows faster than the text: it reads sentences, or pieces of at most 300 characters.
  const pieces = [...text.matchAll(/(?:[^.!?;\n]|[.!?](?=\S)){1,300}/g)]
  const results = pieces.flatMap((p) =>
    chrono.casual.parse(p[0], reference, { forwardDate: true }).map((r) =>
      Object.assign(r, { index: r.index + p.index })
    )
  )
  for (const r of results) {
    const s = r.start
    const lower = r.text.toLowerCase()
    const before = text.slice(Math.max(0, r.index - 40), r.index).toLowerCase()
    const span = [r.index, r.index + r.text.length] as const
    const relative = r.tags().has("result/relativeDate")
    if (relative && !/^(?:in|within|after)\b|\b(?:from now|later|next|this|last)\b/.test(lower)) continue
    const hasDay = s.isCertain("day") || s.isCertain("weekday") || (relative && /^in\b/.test(lower)) ||
      /\b(?:today|tonight|tomorrow|now|this (?:morning|afternoon|evening))\b/.test(lower)
    // chrono reads a bare number as an hour: "120 to 150 CHF", "at 5 Main Street", "from 1 July".
    const after = text.slice(r.index + r.text.length, r.index + r.text.length + 20)
    // "€120 a night", "R$ 300": an amount, never a time.
    const lead = text.slice(Math.max(0, r.index - 4), r.index)
    // "at 15 Jalan Bangsar", "at 5 Main Street": a number in an address.
    if (/^(?:at\s+)?\d{1,4}$/i.test(r.text) && /^\s+\p{Lu}/u.test(text.slice(r.index + r.text.length))) continue
    const sign = /(?:[$€£¥₹₩₪₦₱฿₫₺]|\bR\$?|\bS\/\.?)\s?$/u.test(lead) ||
      currencyCodes.has(/\b([A-Z]{3})\s?$/.exec(lead)?.[1] ?? "")
    if (sign && /^\d/.test(r.text)) {
      continue
    }
    if (!/^(?:at|@)\s|\p{L}{3,}|\d[:/.-]\d|\d\s?[ap]\.?m/iu.test(lower.replace(/\b(?:to|and|from|on|the|or)\b/g, ""))) {
      continue
    }
    const clockWords = /\d:\d|\d\s?(?:[ap]\.?m|h\b)|\b(?:noon|midnight|tonight|morning|afternoon|evening)\b/.test(lower)
    const hasTime = s.isCertain("hour") && (clockWords || s.isCertain("meridiem") || !/^\s+\p{Lu}/u.test(after)) &&
      !(s.isCertain("day") && s.isCertain("month") && !clockWords && !/\bat\b/.test(lower))
    if (!hasDay && !hasTime && !s.isCertain("month") && !/\b(?:week|weekend|now)\b/.test(lower)) continue
    // A time without a day is today's: one already past is asked about, not moved to tomorrow.
    let start = hasDay || s.isCertain("month")
      ? componentsOf(s)
      : componentsOf(s).with({ year: now.year, month: now.month, day: now.day })
    let problem: When["problem"]
    // "this afternoon at 3", said at 5pm, has passed: it is not tomorrow's.
    if (/\b(?:today|tonight|this (?:morning|afternoon|evening))\b/.test(lower)) {
      start = start.with({ year: now.year, month: now.month, day: now.day })
    }
    // "in 1 month" from 31 January is 28 February: the calendar's arithmetic, not chrono's overflow.
    const ahead = /^(?:in|within) (\w+) (minute|hour|day|week|month|year)s?$/.exec(lower)
    const by = ahead === null ? undefined : countOf(ahead[1]!)
    if (ahead !== null && by !== undefined) start = atMinute(now).add(Temporal.Duration.from({ [`${ahead[2]}s`]: by }))
    // "next Friday" is the coming one, a week on when said on a Friday; "Friday" said on a Friday is either.
    if (s.isCertain("weekday") && !s.isCertain("day")) {
      const wanted = s.get("weekday")!
      let ahead = (wanted - (now.dayOfWeek % 7) + 7) % 7
      // A weekday said on that weekday is the next one: today would be "today" or "tonight".
      if (ahead === 0 && !isThisWeekday(lower) && !/\bthis\b/.test(before.slice(-6))) ahead = 7
      if (!/weekend/.test(lower)) {
        start = start.with({ year: now.year, month: now.month, day: now.day }).add({ days: ahead })
      }
    }
    if (s.isCertain("weekday") && s.isCertain("day") && start.dayOfWeek % 7 !== s.get("weekday")) {
      problem = "contradiction"
    }
    // "9-11am", "between 2 and 4pm": the start is in the end's half of the day when it comes before it.
    const endHalf = r.end?.isCertain("meridiem") ? r.end.get("meridiem") : undefined
    const hour = s.get("hour")!
    // A time with minutes is on the 24-hour clock when the request writes another one so ("18:45"); where the
    // kind does not settle the half of the day, also when the place writes times so.
    const minutes = /\d[:.][0-5]\d/.test(lower)
    if (hasTime && !s.isCertain("meridiem") && hour >= 1 && hour <= 11 && !/\b0\d:/.test(lower)) {
      const endHour = r.end?.get("hour") ?? 0
      // "between 10:00 and 12:00", "8-12": a range that ends at noon starts in the morning.
      const half = endHalf === 1 && hour + 12 <= endHour ? "pm" : endHalf === 0 || endHour === 12 ?
        "am" :
        minutes && twentyFour ?
        "am" :
        halfDay(hour) ?? (minutes && place.clock24 === true ? "am" : undefined)
      if (half === "pm") start = start.add({ hours: 12 })
      else if (half === undefined) problem ??= "meridiem"
    }
    const within = lower.startsWith("within")
    const minute = (t: Local): [Local, Local] => [atMinute(t), atMinute(t).add({ minutes: 1 })]
    const day = start.toPlainDate().toPlainDateTime()
    const monday = (ahead: number): [Local, Local] => {
      const first = today.subtract({ days: now.dayOfWeek - 1 }).add({ days: ahead })
      return [first, first.add({ days: 7 })]
    }
    const saturday = today.add({
      days: (6 - (now.dayOfWeek % 7) + 7) % 7 + (/next/.test(lower) && now.dayOfWeek < 6 ? 7 : 0)
    })
    let [from, to]: [Local, Local] = relative && /\b(?:hours?|minutes?|mins?)\b/.test(lower) ?
      minute(start) :
      /\bnow\b/.test(lower) ?
      minute(now) :
      /\bweekend\b/.test(lower) ?
      (hasTime
        ? minute(saturday.with({ hour: start.hour, minute: start.minute }))
        : [saturday, saturday.add({ days: 2 })]) :
      /\b(?:this|next|the following) week\b/.test(lower) ?
      (hasTime ?
        minute(
          monday(/\b(?:next|following)\b/.test(lower) ? 7 : 0)[0].with({ hour: start.hour, minute: start.minute })
        ) :
        monday(/\b(?:next|following)\b/.test(lower) ? 7 : 0)) :
      !hasDay && !hasTime && s.isCertain("month") ?
      [day.with({ day: 1 }), day.with({ day: 1 }).add({ months: 1 })] :
      within ?
      [now, atMinute(start.with({ hour: now.hour, minute: now.minute }))] :
      hasTime ?
      minute(start) :
      [day, day.add({ days: 1 })]
    // "in 2 days at 8am" is on the place's clock; "in 2 hours" and "now" are not.
    const clock = hasTime && !(relative && /\b(?:hours?|minutes?|mins?)\b/.test(lower)) && !/\bnow\b/.test(lower)
    const deadline = within || /\b(?:by|before|no later than|latest)\s+(?:the\s+)?$/.test(before) ||
      /\b(?:by|before)\s+\d/.test(lower)
    if (r.end !== null && r.end !== undefined) {
      const end = componentsOf(r.end)
      if (r.end.isCertain("hour")) to = end.with({ day: from.day, month: from.month, year: from.year })
      else to = end.toPlainDate().toPlainDateTime().add({ days: 1 })
      // "Friday to Sunday" said on a Saturday: the Sunday after that Friday.
      while (r.end.isCertain("weekday") && !r.end.isCertain("day") && Temporal.PlainDateTime.compare(to, from) <= 0) {
        to = to.add({ days: 7 })
      }
      if (Temporal.PlainDateTime.compare(to, from) <= 0) problem ??= "ambiguous"
    }
    if (deadline && !within) [from, to] = /\bbefore\s+(?:the\s+)?$/.test(before) || hasTime ? [from, from] : [to, to]
    const passed = Temporal.PlainDateTime.compare(deadline ? to : hasTime && !r.end ? from : to, now) <= 0
    if (passed && !/\bnow\b/.test(lower)) problem ??= "past"
    const part = hasDay || s.isCertain("month") || relative ? (hasTime ? "both" : "day") : "time"
    const words = [wordsOf(traced, ...span)]
    whens.push({
      ...(s.isCertain("weekday") && !s.isCertain("day") && !relative ? { weekday: true } : {}),
      ...(!hasTime && /\b(?:morning|afternoon|evening|night|arvo|lunchtime)s?\b/.test(lower) ? { dayPart: true } : {}),
      ...(hasTime && /\b(?:weekend|week)\b/.test(lower) ? { wide: true } : {}),
      text: r.text,
      span,
      words,
      from,
      to,
      deadline,
      clock,
      part,
      ...(problem === undefined ? {} : { problem })
    })
  }
  return { whens: combine(whens, text, now), text, traced }
}
