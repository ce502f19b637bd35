import { daysFromCivil, daysInMonth } from "../../schema/Constraint.ts"
import type { Clock, Problem } from "./Calendar.ts"
import { addMonths, civilFromDays, isProblem, weekdayOf } from "./Calendar.ts"
import type { DaySpan, DaySpec, Hint } from "./DateWords.ts"
import { dayWords, months, nextMonthDay, single, weekdayAbbreviations, weekdays } from "./DateWords.ts"
import type { Reader } from "./Reader.ts"

export const ordinalAt = (r: Reader, i: number): { end: number; day: number } | undefined => {
  const token = r.tokens[i]
  if (token?.kind !== "num" || !/^\d{1,2}$/.test(token.text)) return undefined
  const day = Number(token.text)
  if (day < 1 || day > 31) return undefined
  const suffix = r.lower(i + 1)
  const hasSuffix = r.attached(i + 1) && ["st", "nd", "rd", "th", "º", "ª", "er", "o"].includes(suffix)
  return { end: hasSuffix ? i + 2 : i + 1, day }
}

export const yearAt = (r: Reader, i: number): { end: number; year: number } | undefined => {
  let k = i
  if (r.lower(k) === "," || r.lower(k) === "de") k++
  const token = r.tokens[k]
  if (token?.kind === "num" && /^(?:19|20|21)\d\d$/.test(token.text)) return { end: k + 1, year: Number(token.text) }
  return undefined
}

export const monthAt = (r: Reader, i: number): { end: number; month: number } | undefined => {
  const w = r.lower(i)
  const month = months[w]
  if (month === undefined) return undefined
  return { end: r.tokens[i + 1]?.text === "." && w.length <= 4 ? i + 2 : i + 1, month }
}

/** A month and day with an optional year: a past date without a year means next year's. */
export const monthDay = (month: number, day: number, year: number | undefined, what: string): DaySpec => (clock) => {
  if (year !== undefined) {
    if (day > daysInMonth(year, month)) return { problem: "unreadable", what }
    return single(daysFromCivil(year, month, day))
  }
  if (day > 29 && day > daysInMonth(2024, month)) return { problem: "unreadable", what }
  const found = nextMonthDay(clock.today, month, day)
  return found === undefined ? { problem: "unreadable", what } : single(found)
}

/** A day or a run of days at i: the index after it and how it resolves. */
export const readDay = (r: Reader, i: number): { end: number; day: DaySpec; hint?: Hint; text: string } | undefined => {
  const found = r.readDayInner(i)
  if (found === undefined) return undefined
  // "tomorrow morning", "Friday night", "Saturday evening".
  const part = r.lower(found.end)
  const hint: Hint | undefined = part === "morning" ? "am" : ["evening", "night", "afternoon"].includes(part) ?
    "pm" :
    found.hint
  const end = hint !== found.hint ? found.end + 1 : found.end
  const text = r.tokens.slice(i, end).map((t, k) => (k > 0 && t.gap ? " " : "") + t.text).join("")
  return hint === undefined ? { end, day: found.day, text } : { end, day: found.day, hint, text }
}

export const readDayInner = (r: Reader, i: number): { end: number; day: DaySpec; hint?: Hint } | undefined => {
  const w = r.lower(i)
  const token = r.tokens[i]
  if (token === undefined) return undefined
  const what = token.text

  // ISO 8601: 2026-12-03
  if (token.kind === "num" && /^\d{4}$/.test(token.text) && r.lower(i + 1) === "-" && r.attached(i + 1)) {
    const m = r.tokens[i + 2]
    const d = r.tokens[i + 4]
    if (
      m?.kind === "num" && r.attached(i + 2) && r.lower(i + 3) === "-" && r.attached(i + 3) &&
      d?.kind === "num" && r.attached(i + 4) && /^\d{1,2}$/.test(m.text) && /^\d{1,2}$/.test(d.text)
    ) {
      const year = Number(token.text)
      const month = Number(m.text)
      const day = Number(d.text)
      const spec: DaySpec = month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) ?
        () => single(daysFromCivil(year, month, day)) :
        () => ({ problem: "unreadable", what: `${token.text}-${m.text}-${d.text}` })
      // 2026-12-03T19:00
      // 2026-12-03T19:00: the "T" joins the time that follows.
      const t = r.tokens[i + 5]
      const joined = t !== undefined && r.attached(i + 5) && t.lower === "t" && r.tokens[i + 6]?.kind === "num"
      return { end: joined ? i + 6 : i + 5, day: spec }
    }
  }

  // Numeric dates: 12/03/2026 (ambiguous when both could be the month), 12.03.2026 (day first).
  if (token.kind === "num" && /^\d{1,2}\.\d{1,2}\.\d{2,4}$/.test(token.text)) {
    const [d, m, y] = token.text.split(".").map(Number) as [number, number, number]
    const year = y < 100 ? 2000 + y : y
    return {
      end: i + 1,
      day: () =>
        m >= 1 && m <= 12 && d >= 1 && d <= daysInMonth(year, m) ? single(daysFromCivil(year, m, d)) : {
          problem: "unreadable",
          what
        }
    }
  }
  if (
    token.kind === "num" && /^\d{1,2}$/.test(token.text) && r.lower(i + 1) === "/" && r.attached(i + 1) &&
    r.tokens[i + 2]?.kind === "num" && r.attached(i + 2) && /^\d{1,2}$/.test(r.tokens[i + 2]!.text)
  ) {
    const a = Number(token.text)
    const b = Number(r.tokens[i + 2]!.text)
    let end = i + 3
    let year: number | undefined
    const y = r.tokens[i + 4]
    if (
      r.lower(i + 3) === "/" && r.attached(i + 3) && y?.kind === "num" && r.attached(i + 4) &&
      /^(?:\d{2}|\d{4})$/.test(y.text)
    ) {
      year = y.text.length === 2 ? 2000 + Number(y.text) : Number(y.text)
      end = i + 5
    }
    const text = r.tokens.slice(i, end).map((t) => t.text).join("")
    const dayFirst = a > 12 && b <= 12
    const monthFirst = b > 12 && a <= 12
    if ((a <= 12 && b <= 12 && a !== b) || (!dayFirst && !monthFirst && a !== b)) {
      return { end, day: () => ({ problem: "ambiguous", what: text }) }
    }
    const [day, month] = monthFirst ? [b, a] : [a, b]
    return { end, day: monthDay(month, day, year, text) }
  }

  // 12 March [2027], 12th of March, 12 de março, 12-15 March
  const ordinal = r.ordinalAt(i)
  if (ordinal !== undefined) {
    let k = ordinal.end
    let lastDay: number | undefined
    const joiner = r.lower(k)
    if (["-", "–", "to", "until", "till", "and", "through", "thru"].includes(joiner)) {
      const second = r.ordinalAt(k + 1)
      if (second !== undefined) {
        const afterSecond = ["of", "de"].includes(r.lower(second.end)) ? second.end + 1 : second.end
        if (r.monthAt(afterSecond) !== undefined) {
          lastDay = second.day
          k = afterSecond
        }
      }
    }
    if (lastDay === undefined && ["of", "de"].includes(r.lower(k))) k++
    const month = r.monthAt(k)
    if (month !== undefined) {
      const year = r.yearAt(month.end)
      const end = year?.end ?? month.end
      const text = r.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
      return { end, day: dayRange(month.month, ordinal.day, lastDay, year?.year, text) }
    }
  }

  // March 12 [2027], March 12th, March 12-15
  const month = r.monthAt(i)
  if (month !== undefined) {
    const day = r.ordinalAt(month.end)
    if (day !== undefined) {
      let k = day.end
      let lastDay: number | undefined
      if (["-", "–", "to", "until", "till", "through", "thru"].includes(r.lower(k))) {
        const second = r.ordinalAt(k + 1)
        if (second !== undefined) {
          lastDay = second.day
          k = second.end
        }
      }
      const year = r.yearAt(k)
      const end = year?.end ?? k
      const text = r.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
      return { end, day: dayRange(month.month, day.day, lastDay, year?.year, text) }
    }
  }

  // the 12th
  if (w === "the") {
    const ordinal = r.ordinalAt(i + 1)
    if (ordinal !== undefined && ordinal.end === i + 3 && r.monthAt(ordinal.end) === undefined) {
      const dayOfMonth = ordinal.day
      return {
        end: ordinal.end,
        day: (clock) => {
          for (let k = 0; k < 12; k++) {
            const first = addMonths(clock.today - civilFromDays(clock.today).d + 1, k)
            const { m, y } = civilFromDays(first)
            if (dayOfMonth > daysInMonth(y, m)) continue
            const candidate = daysFromCivil(y, m, dayOfMonth)
            if (candidate >= clock.today) return single(candidate)
          }
          return { problem: "unreadable", what: `the ${dayOfMonth}th` }
        }
      }
    }
  }

  if (w === "today") return { end: i + 1, day: (clock) => single(clock.today) }
  if (w === "tonight") return { end: i + 1, day: (clock) => single(clock.today), hint: "pm" }
  if (w === "yesterday") return { end: i + 1, day: () => ({ problem: "past", what }) }
  if (
    w === "the" && r.lower(i + 1) === "day" && r.lower(i + 2) === "after" && dayWords.has(r.lower(i + 3))
  ) {
    return { end: i + 4, day: (clock) => single(clock.today + 2) }
  }
  if (
    w === "day" && r.lower(i + 1) === "after" && dayWords.has(r.lower(i + 2)) && r.lower(i + 2) !== "today"
  ) {
    return { end: i + 3, day: (clock) => single(clock.today + 2) }
  }
  if (dayWords.has(w)) return { end: i + 1, day: (clock) => single(clock.today + 1) }
  if (w === "this" && ["morning", "afternoon", "evening"].includes(r.lower(i + 1))) {
    return { end: i + 2, day: (clock) => single(clock.today), hint: r.lower(i + 1) === "morning" ? "am" : "pm" }
  }

  // [this|next|coming] Friday [the 13th] [, 13 March]
  const modifier = ["this", "next", "coming", "on"].includes(w) ? w : undefined
  const k = modifier === undefined ? i : i + 1
  const dayName = r.lower(k)
  const weekday = weekdays[dayName] ?? weekdays[dayName.replace(/s$/, "")] ??
    (modifier !== undefined || r.lower(i - 1) === "on" || r.lower(i - 1) === "by" ?
      weekdayAbbreviations[dayName] :
      undefined)
  if (weekday !== undefined) {
    let end = k + 1
    if (r.tokens[end]?.text === "." && dayName.length <= 4) end++
    // Friday the 13th, Friday 13 March, Friday, March 13
    let afterComma = r.lower(end) === "," ? end + 1 : end
    if (r.lower(afterComma) === "the") afterComma++
    const dated = r.readDayInner(afterComma)
    const ordinalOnly = dated === undefined ? r.ordinalAt(afterComma) : undefined
    if (dated !== undefined) {
      const text = r.tokens.slice(i, dated.end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
      return {
        end: dated.end,
        day: (clock) => {
          const span = dated.day(clock)
          if (isProblem(span)) return span
          return span.end - span.start === 1 && weekdayOf(span.start) === weekday ?
            span :
            { problem: "ambiguous", what: text }
        }
      }
    }
    if (ordinalOnly !== undefined && ordinalOnly.end > afterComma) {
      const dayOfMonth = ordinalOnly.day
      const text = r.tokens.slice(i, ordinalOnly.end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
      return {
        end: ordinalOnly.end,
        day: (clock) => {
          for (let m = 0; m < 12 * 30; m++) {
            const first = addMonths(clock.today - civilFromDays(clock.today).d + 1, m)
            const { m: month, y } = civilFromDays(first)
            if (dayOfMonth > daysInMonth(y, month)) continue
            const candidate = daysFromCivil(y, month, dayOfMonth)
            if (candidate >= clock.today && weekdayOf(candidate) === weekday) return single(candidate)
          }
          return { problem: "unreadable", what: text }
        }
      }
    }
    const text = r.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
    return {
      end,
      day: (clock) => {
        const ahead = (weekday - weekdayOf(clock.today) + 7) % 7
        if (modifier === "this") return single(clock.today + ahead)
        if (modifier === "next" || modifier === "coming") return single(clock.today + (ahead === 0 ? 7 : ahead))
        // "Friday" said on a Friday: today or a week today? Ask.
        return ahead === 0 ? { problem: "ambiguous", what: text } : single(clock.today + ahead)
      }
    }
  }

  // this/next weekend, this/next week, this/next month
  if (
    modifier !== undefined && modifier !== "on" && ["weekend", "week", "month", "year"].includes(r.lower(i + 1))
  ) {
    const unit = r.lower(i + 1)
    const next = modifier !== "this"
    return {
      end: i + 2,
      day: (clock) => {
        const wd = weekdayOf(clock.today)
        if (unit === "weekend") {
          const saturday = wd === 0 ? clock.today - 1 : clock.today + (6 - wd)
          const start = next ? saturday + 7 : saturday
          return { start, end: start + 2 }
        }
        if (unit === "week") {
          const monday = clock.today + ((8 - wd) % 7 || 7)
          return next ? { start: monday, end: monday + 7 } : { start: clock.today, end: monday }
        }
        const firstOfMonth = clock.today - civilFromDays(clock.today).d + 1
        if (unit === "month") {
          const following = addMonths(firstOfMonth, 1)
          return next ? { start: following, end: addMonths(firstOfMonth, 2) } : { start: clock.today, end: following }
        }
        const { y } = civilFromDays(clock.today)
        return next ?
          { start: daysFromCivil(y + 1, 1, 1), end: daysFromCivil(y + 2, 1, 1) } :
          { start: clock.today, end: daysFromCivil(y + 1, 1, 1) }
      }
    }
  }
  if (w === "weekend" && r.lower(i - 1) === "the") {
    return {
      end: i + 1,
      day: (clock) => {
        const wd = weekdayOf(clock.today)
        const saturday = wd === 0 ? clock.today - 1 : clock.today + (6 - wd)
        return { start: saturday, end: saturday + 2 }
      }
    }
  }

  // [the] end of [the] week/month/year: its last day (the week ends on Sunday, as ISO 8601 has it).
  let e = i
  if (w === "the") e++
  if (r.lower(e) === "end" && r.lower(e + 1) === "of") {
    let u = e + 2
    if (["the", "this"].includes(r.lower(u))) u++
    const unit = r.lower(u)
    if (["week", "month", "year"].includes(unit)) {
      return {
        end: u + 1,
        day: (clock) => {
          if (unit === "week") return single(clock.today + ((7 - weekdayOf(clock.today)) % 7))
          if (unit === "month") return single(addMonths(clock.today - civilFromDays(clock.today).d + 1, 1) - 1)
          return single(daysFromCivil(civilFromDays(clock.today).y, 12, 31))
        }
      }
    }
    const month = r.monthAt(u)
    if (month !== undefined) {
      return {
        end: month.end,
        day: (clock) => {
          const first = monthDay(month.month, 1, undefined, "")(clock)
          if (isProblem(first)) return first
          const { m, y } = civilFromDays(first.start)
          return single(daysFromCivil(y, m, daysInMonth(y, m)))
        }
      }
    }
  }
  return undefined
}

export const dayRange =
  (month: number, first: number, last: number | undefined, year: number | undefined, what: string) =>
  (clock: Clock): DaySpan | Problem => {
    const start = monthDay(month, first, year, what)(clock)
    if (isProblem(start) || last === undefined) return start
    if (last < first) return { problem: "unreadable", what }
    const { m, y } = civilFromDays(start.start)
    if (last > daysInMonth(y, m)) return { problem: "unreadable", what }
    return { start: start.start, end: daysFromCivil(y, m, last) + 1 }
  }

/** A clock time at i. A bare number ("at 7") counts only where `bare` says the words before make it a time. */
