import { addMonths } from "./Calendar.ts"
import type { Cue, Hint, Moment, TimeSpec, WhenReading } from "./DateWords.ts"
import { dayWords, single, timeUnits, weekdays } from "./DateWords.ts"
import { nowTime } from "./Kinds.ts"
import { wordNumber } from "./Numbers.ts"
import type { Reader } from "./Reader.ts"

export const readTime = (r: Reader, i: number, bare: boolean): { end: number; time: TimeSpec } | undefined => {
  const first = r.readClock(i, bare)
  if (first === undefined) return undefined
  const joiner = r.lower(first.end)
  if (["-", "–", "to", "until", "till", "and"].includes(joiner)) {
    const second = r.readClock(first.end + 1, true)
    if (second !== undefined && (joiner !== "and" || r.lower(i - 1) === "between")) {
      let start = first.time
      // "7-9pm": the first takes the second's half of the day.
      if (start.ambiguous && !second.time.ambiguous && start.start < 720) {
        const pm = second.time.start >= 720 && start.start + 720 < second.time.start
        start = { ...start, start: pm ? start.start + 720 : start.start, ambiguous: false }
      }
      const text = r.tokens.slice(i, second.end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
      return {
        end: second.end,
        time: {
          start: start.start,
          end: second.time.start,
          ambiguous: start.ambiguous || second.time.ambiguous,
          text
        }
      }
    }
  }
  return first
}

export const readClock = (r: Reader, i: number, bare: boolean): { end: number; time: TimeSpec } | undefined => {
  const w = r.lower(i)
  if (w === "noon" || w === "midday") return { end: i + 1, time: { start: 720, ambiguous: false, text: w } }
  if (w === "midnight") return { end: i + 1, time: { start: 1440, ambiguous: false, text: w } }
  const token = r.tokens[i]
  if (token?.kind !== "num") return undefined
  let hour: number
  let minute = 0
  let end = i + 1
  let twentyFour = false
  const dotted = /^(\d{1,2})\.(\d{2})$/.exec(token.text)
  if (dotted !== null) {
    hour = Number(dotted[1])
    minute = Number(dotted[2])
  } else if (/^\d{1,2}$/.test(token.text)) {
    hour = Number(token.text)
    if (token.text.length === 2 && token.text[0] === "0") twentyFour = true
  } else {
    return undefined
  }
  let explicit = dotted !== null
  if (dotted === null && [":", "h"].includes(r.lower(end)) && r.attached(end)) {
    const m = r.tokens[end + 1]
    if (m?.kind === "num" && r.attached(end + 1) && /^\d{2}$/.test(m.text)) {
      minute = Number(m.text)
      end += 2
      explicit = true
      if (r.lower(end - 2) === "h") twentyFour = true
      // 19:00:00
      if (r.lower(end) === ":" && r.tokens[end + 1]?.kind === "num" && r.attached(end + 1)) end += 2
    } else if (r.lower(end) === "h") {
      end += 1
      explicit = true
      twentyFour = true
    }
  }
  let meridiem: "am" | "pm" | undefined
  const m1 = r.lower(end)
  if (m1 === "am" || m1 === "pm") {
    meridiem = m1
    end += 1
  } else if ((m1 === "a" || m1 === "p") && r.lower(end + 1) === "." && r.lower(end + 2) === "m") {
    meridiem = m1 === "a" ? "am" : "pm"
    end += r.lower(end + 3) === "." ? 4 : 3
  } else if (m1 === "o'clock") {
    end += 1
    explicit = true
  }
  if (hour > 24 || minute > 59) return undefined
  if (meridiem !== undefined) {
    if (hour < 1 || hour > 12) return undefined
    const h = meridiem === "am" ? hour % 12 : (hour % 12) + 12
    const text = r.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
    return { end, time: { start: h * 60 + minute, ambiguous: false, text } }
  }
  if (!explicit && !bare) return undefined
  // A bare number followed by a noun is a count ("at 2 restaurants"), not a time.
  if (
    !explicit && r.tokens[end]?.kind === "word" &&
    ![
      "in",
      "on",
      "tomorrow",
      "today",
      "tonight",
      "and",
      "or",
      "please",
      "for",
      "with",
      "to",
      "until",
      "till",
      "the",
      "this",
      "next",
      "at"
    ].includes(r.lower(end)) && weekdays[r.lower(end)] === undefined && !dayWords.has(r.lower(end))
  ) {
    return undefined
  }
  if (!explicit && r.tokens[end]?.kind === "sym" && ["%", "$", "€", "£", "/"].includes(r.tokens[end]!.text)) {
    return undefined
  }
  if (hour === 24 && minute > 0) return undefined
  const text = r.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
  const ambiguous = !twentyFour && hour >= 1 && hour <= 12 && hour !== 12
  return { end, time: { start: hour * 60 + minute, ambiguous: ambiguous && hour < 12, text } }
}

/** Optional "in the morning/evening" after a time. */
export const timeHint = (r: Reader, i: number): { end: number; hint: Hint } | undefined => {
  if (r.lower(i) === "in" && r.lower(i + 1) === "the") {
    const part = r.lower(i + 2)
    if (part === "morning") return { end: i + 3, hint: "am" }
    if (part === "evening" || part === "afternoon" || part === "night") return { end: i + 3, hint: "pm" }
  }
  if (r.lower(i) === "at" && r.lower(i + 1) === "night") return { end: i + 2, hint: "pm" }
  return undefined
}

/** A day and a time in either order, or one of them. */
export const readMoment = (r: Reader, i: number, bare: boolean): { end: number; moment: Moment } | undefined => {
  const day = r.readDay(i)
  if (day !== undefined) {
    let k = day.end
    if ([",", "at", "@", "around", "from", "between", "by", "before"].includes(r.lower(k))) k++
    if (r.lower(k) === "at" || r.lower(k) === "around") k++
    const time = r.readTime(k, k > day.end)
    if (time !== undefined) {
      const hint = r.timeHint(time.end)
      const end = hint?.end ?? time.end
      const h = hint?.hint ?? day.hint
      const text = r.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
      return {
        end,
        moment: h === undefined
          ? { day: day.day, time: time.time, text }
          : { day: day.day, time: time.time, hint: h, text }
      }
    }
    return {
      end: day.end,
      moment: day.hint === undefined
        ? { day: day.day, text: day.text }
        : { day: day.day, hint: day.hint, text: day.text }
    }
  }
  const time = r.readTime(i, bare)
  if (time === undefined) return undefined
  let k = time.end
  const hint = r.timeHint(k)
  if (hint !== undefined) k = hint.end
  let dayAt = k
  if ([",", "on"].includes(r.lower(dayAt))) dayAt++
  const after = r.readDay(dayAt)
  const end = after?.end ?? k
  const h = hint?.hint ?? after?.hint
  const text = r.tokens.slice(i, end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
  const moment: Moment = after === undefined ? { time: time.time, text } : { day: after.day, time: time.time, text }
  return { end, moment: h === undefined ? moment : { ...moment, hint: h } }
}

/** A count of time units at i ("3 days", "a week", "two hours"). */
export const readDuration = (
  r: Reader,
  i: number
): { end: number; count: number; unit: "minute" | "hour" | "day" | "week" | "month" } | undefined => {
  const w = r.lower(i)
  let count: number | undefined
  let k = i + 1
  if (w === "a" || w === "an" || w === "one") count = 1
  else if (r.tokens[i]?.kind === "num" && /^\d{1,5}$/.test(w)) count = Number(w)
  else count = wordNumber(w)
  if (w === "a" && r.lower(k) === "couple" && r.lower(k + 1) === "of") {
    count = 2
    k += 2
  }
  if (count === undefined) return undefined
  const unit = timeUnits[r.lower(k)]
  if (unit === undefined) return undefined
  const fortnight = r.lower(k) === "fortnight"
  return { end: k + 1, count: fortnight ? count * 2 : count, unit }
}

export const readWhen = (r: Reader, i: number): number | undefined => {
  const w = r.lower(i)
  // within 3 days, in 20 minutes, in 2 weeks
  if (w === "within" || w === "in") {
    const duration = r.readDuration(i + 1)
    if (duration !== undefined) {
      const { count, unit } = duration
      if (count > 36_500) {
        r.out.whens.push({
          cue: "on",
          from: { day: () => ({ problem: "unreadable", what: "that date" }), text: "" }
        })
        return duration.end
      }
      const text = r.tokens.slice(i, duration.end).map((t, n) => (n > 0 && t.gap ? " " : "") + t.text).join("")
      if (unit === "minute" || unit === "hour") {
        const ms = count * (unit === "minute" ? 60_000 : 3_600_000)
        r.out.whens.push({
          cue: w === "within" ? "by" : "on",
          from: { text },
          exactMs: (clock) => clock.nowMs + ms
        })
        return duration.end
      }
      const shift = (today: number) =>
        unit === "month" ? addMonths(today, count) : today + count * (unit === "week" ? 7 : 1)
      if (w === "within") {
        // Calendar days keep the wall-clock time, across a DST change too.
        r.out.whens.push({ cue: "by", from: { day: (clock) => single(shift(clock.today)), time: nowTime, text } })
        return duration.end
      }
      r.out.whens.push({ cue: "on", from: { day: (clock) => single(shift(clock.today)), text } })
      return duration.end
    }
  }

  let cue: Cue = "on"
  let k = i
  if (["by", "until", "till", "til", "latest"].includes(w)) {
    cue = "by"
    k++
  } else if (w === "before") {
    cue = "before"
    k++
  } else if ((w === "no" || w === "not") && r.lower(i + 1) === "later" && r.lower(i + 2) === "than") {
    cue = "by"
    k += 3
  }
  const range = ["from", "between"].includes(w)
  if (range) k++
  const timeWords = ["at", "@", "around", "about", "approx", "approximately"]
  const bare = cue !== "on" || range || timeWords.includes(w)
  if (timeWords.includes(w)) k++
  const first = r.readMoment(k, bare)
  if (first === undefined) return undefined
  let end = first.end
  let to: Moment | undefined
  const joiner = r.lower(end)
  if (
    ["to", "until", "till", "through", "thru", "-", "–"].includes(joiner) || (joiner === "and" && w === "between")
  ) {
    const second = r.readMoment(end + 1, true)
    if (second !== undefined) {
      to = second.moment
      end = second.end
    }
  }
  const reading: WhenReading = to === undefined ? { cue, from: first.moment } : { cue: "on", from: first.moment, to }
  r.out.whens.push(reading)
  return end
}

// ---- counts ------------------------------------------------------------------------------------
