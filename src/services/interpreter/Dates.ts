import { DateTime, Option } from "effect"
import type { ConstraintInput, ObjectiveKind } from "../../schema/Constraint.ts"
import { sameZone } from "./Budget.ts"
import type { Clock, Instant, Problem } from "./Calendar.ts"
import { exactInstant, isProblem, isUtcZone, localInstant, makeClock } from "./Calendar.ts"
import type { Hint, Moment, TimeSpec, WhenReading } from "./DateWords.ts"
import { single } from "./DateWords.ts"
import type { Findings } from "./Findings.ts"
import { id, isNoneAnswer, needsDate } from "./Findings.ts"
import type { InterpretInput } from "./Interpreter.ts"
import { collapse, nowTime } from "./Kinds.ts"
import { Reader } from "./Reader.ts"
import type { Reading } from "./Reading.ts"

interface ZoneState {
  readonly zone: string | undefined
  readonly zoneFromText: boolean
  readonly zoneConflict: boolean
  readonly callerZone: string | undefined
  readonly explicitZones: ReadonlyArray<string>
}

interface Resolved {
  readonly type: "window" | "deadline"
  readonly start: Instant
  readonly end: Instant
}

const applyHint = (time: TimeSpec, hint: Hint | undefined, globalHints: ReadonlySet<Hint>): TimeSpec | undefined => {
  if (!time.ambiguous) return time
  const h = hint ?? (globalHints.size === 1 ? [...globalHints][0] : undefined)
  const shift = (m: number | undefined, pm: boolean) => m === undefined ? undefined : pm && m < 720 ? m + 720 : m
  if (h === "pm") {
    const end = shift(time.end, true)
    return end === undefined
      ? { ...time, start: time.start + 720, ambiguous: false }
      : { ...time, start: time.start + 720, end, ambiguous: false }
  }
  if (h === "am") return { ...time, ambiguous: false }
  if (h === "lunch") {
    const hour = Math.floor(time.start / 60)
    const pm = hour >= 1 && hour <= 5
    return { ...time, start: pm ? time.start + 720 : time.start, ambiguous: false }
  }
  return undefined
}

/** "pm", "evening", "7pm", "19:30": what an answer to the am/pm question says. */
const readMeridiemAnswer = (
  answer: string
): { readonly hint: "am" | "pm" } | { readonly time: TimeSpec } | undefined => {
  const trimmed = collapse(answer.toWellFormed().normalize("NFKC")).toLowerCase()
  const reader = new Reader(trimmed)
  for (let i = 0; i < reader.tokens.length; i++) {
    const time = reader.readTime(i, true)
    if (time !== undefined && !time.time.ambiguous && time.end - i > 1) return { time: time.time }
  }
  if (/\b(?:pm|p\.m\.|evening|night|afternoon|tonight)\b/.test(trimmed)) return { hint: "pm" }
  if (/\b(?:am|a\.m\.|morning)\b/.test(trimmed)) return { hint: "am" }
  for (let i = 0; i < reader.tokens.length; i++) {
    const time = reader.readTime(i, true)
    if (time !== undefined && !time.time.ambiguous) return { time: time.time }
  }
  return undefined
}

export const readDates = (
  reading: Reading,
  kind: ObjectiveKind,
  input: InterpretInput,
  answers: ReadonlyMap<string, string>,
  zones: ZoneState,
  result: Findings
): void => {
  const caller = input.constraints
  const callerWindows = caller.filter((c): c is Extract<ConstraintInput, { type: "window" }> => c.type === "window")
  const callerDeadlines = caller.filter((c): c is Extract<ConstraintInput, { type: "deadline" }> =>
    c.type === "deadline"
  )
  const dateAnswer = answers.get(id("date"))
  const timeAnswer = answers.get(id("time"))
  const zoneAnswer = answers.get(id("timezone"))

  let whens = reading.whens
  let answeredDate = false
  let noDateWanted = false
  let dateAnswerUnread: string | undefined
  if (dateAnswer !== undefined) {
    if (isNoneAnswer(dateAnswer)) {
      whens = []
      noDateWanted = true
      answeredDate = true
    } else {
      const parsed = new Reader(dateAnswer.toWellFormed().normalize("NFKC")).read()
      const own = parsed.whens.length > 0 ? parsed.whens : readBareTime(dateAnswer)
      if (own.length > 0) {
        // "12 March" to a question about "12/03 at 8pm" keeps the 8pm the words gave.
        const textTimes = dedupeBy(
          reading.whens.filter((w) =>
            w.cue === "on" && w.to === undefined && w.exactMs === undefined && w.from.time !== undefined
          ),
          (w) => JSON.stringify(w.from.time)
        )
        const [answered] = own
        whens = own.length === 1 && textTimes.length === 1 && answered!.cue === "on" && answered!.to === undefined &&
            answered!.exactMs === undefined && answered!.from.time === undefined && answered!.from.day !== undefined
          ? [{ ...answered!, from: { ...textTimes[0]!.from, day: answered!.from.day } }]
          : own
        answeredDate = true
        if (parsed.zones.length === 1 && zones.zone === undefined) {
          zones = { ...zones, zone: parsed.zones[0], zoneFromText: true }
        }
      } else {
        dateAnswerUnread = dateAnswer
      }
    }
  }

  // The am/pm question's answer settles every ambiguous time.
  const meridiem = timeAnswer === undefined ? undefined : readMeridiemAnswer(timeAnswer)
  const settle = (moment: Moment): Moment | "ambiguous" => {
    if (moment.time === undefined || !moment.time.ambiguous) return moment
    if (meridiem !== undefined) {
      if ("time" in meridiem) return { ...moment, time: meridiem.time }
      const settled = applyHint(moment.time, meridiem.hint, new Set())
      return settled === undefined ? "ambiguous" : { ...moment, time: settled }
    }
    const settled = applyHint(moment.time, moment.hint, reading.hints)
    return settled === undefined ? "ambiguous" : { ...moment, time: settled }
  }
  const settled: Array<WhenReading> = []
  const ambiguousTimes: Array<string> = []
  for (const when of whens) {
    const from = settle(when.from)
    const to = when.to === undefined ? undefined : settle(when.to)
    if (from === "ambiguous" || to === "ambiguous") {
      ambiguousTimes.push(
        (from === "ambiguous" ? when.from.time?.text : to === "ambiguous" ? when.to?.time?.text : undefined) ?? ""
      )
      continue
    }
    settled.push(to === undefined ? { ...when, from } : { ...when, from, to })
  }
  if (ambiguousTimes.length > 0) {
    const t = ambiguousTimes[0]!
    result.ask("time", `Is ${t} in the morning or in the evening?`, meridiem === undefined ? timeAnswer : undefined)
  }

  // "dinner at 8 ... on Friday": a lone time and a lone day read apart are one moment.
  const plain = (w: WhenReading) => w.cue === "on" && w.to === undefined && w.exactMs === undefined
  const dayOnly = settled.filter((w) => plain(w) && w.from.day !== undefined && w.from.time === undefined)
  const timeOnly = settled.filter((w) => plain(w) && w.from.day === undefined && w.from.time !== undefined)
  if (dayOnly.length === 1 && timeOnly.length === 1) {
    const [day] = dayOnly as [WhenReading]
    const [time] = timeOnly as [WhenReading]
    settled.splice(settled.indexOf(time), 1)
    settled[settled.indexOf(day)] = {
      cue: "on",
      from: { day: day.from.day!, time: time.from.time!, text: `${day.from.text} ${time.from.text}` }
    }
  }

  const usesClock = settled.some((w) =>
    w.exactMs === undefined && (w.from.time !== undefined || w.to?.time !== undefined)
  )
  const usesDays = settled.length > 0

  if (zones.zoneConflict && usesDays) {
    result.ask(
      "timezone",
      `Which time zone should times be read in: ${
        [...(zones.callerZone === undefined ? [] : [zones.callerZone]), ...zones.explicitZones].join(" or ")
      }?`,
      zoneAnswer
    )
    return
  }
  if (zones.zone === undefined && usesClock) {
    result.ask(
      "timezone",
      "Which time zone are the times in? Please name it, for example Europe/Lisbon, or a city.",
      zoneAnswer
    )
    return
  }
  if (zoneAnswer !== undefined && zones.zone === undefined && zones.zoneConflict === false && usesClock) return

  const zone = zones.zone ?? "UTC"
  const clock = makeClock(input.createdAt, zone)
  if (clock === undefined) return

  const resolved: Array<Resolved> = []
  const problems: Array<Problem> = []
  for (const when of settled) {
    const r = resolveWhen(when, clock)
    if (isProblem(r)) problems.push(r)
    else resolved.push(r)
  }

  const windows = narrowWindows(resolved.filter((r) => r.type === "window"))
  const deadlines = dedupeBy(resolved.filter((r) => r.type === "deadline"), (r) => r.start.ms)

  let usedZone = false
  const dateQuestion = (text: string) => result.ask("date", text, dateAnswerUnread)
  if (problems.length > 0) {
    const p = problems[0]!
    dateQuestion(
      p.problem === "past" ?
        `${p.what === "" ? "That date" : `"${p.what}"`} has already passed: when should it be?` :
        p.problem === "ambiguous" ?
        `Which date is meant by "${p.what}"? Please give the day, for example 12 March, and a time if it matters.` :
        `"${p.what}" is not a date: when should it be?`
    )
  } else if (windows === "conflict" || deadlines.length > 1) {
    dateQuestion(
      `The request names more than one time (${
        settled.map((w) => w.from.text + (w.to === undefined ? "" : ` to ${w.to.text}`)).filter((t) => t !== "").join(
          ", "
        )
      }): when should it be?`
    )
  } else {
    const window = windows[0]
    const deadline = deadlines[0]
    if (window !== undefined) {
      const covered = !answeredDate && callerWindows.length > 0
      if (covered) {
        const overlaps = callerWindows.some((c) => overlapsWindow(c, window))
        if (!overlaps) {
          dateQuestion(
            `The request says ${window.start.iso} to ${window.end.iso} but the window given is ${
              callerWindows.map((c) => `${c.start} to ${c.end}`).join(", ")
            }: when should it be?`
          )
        }
      } else if (!callerWindows.some((c) => c.start === window.start.iso && c.end === window.end.iso)) {
        result.constraints.push({ type: "window", start: window.start.iso, end: window.end.iso })
        usedZone = true
      }
    }
    if (deadline !== undefined) {
      const covered = !answeredDate && callerDeadlines.length > 0
      if (covered) {
        const stricter = callerDeadlines.some((c) => instantMs(c.by) <= deadline.start.ms)
        if (!stricter) {
          dateQuestion(
            `The request says by ${deadline.start.iso} but the deadline given is ${
              callerDeadlines.map((c) => c.by).join(", ")
            }: by when?`
          )
        }
      } else if (!callerDeadlines.some((c) => c.by === deadline.start.iso)) {
        result.constraints.push({ type: "deadline", by: deadline.start.iso })
        usedZone = true
      }
    }
  }

  const anyDate = settled.length > 0 || callerWindows.length > 0 || callerDeadlines.length > 0 || noDateWanted
  if (!anyDate && ambiguousTimes.length === 0 && needsDate.has(kind)) {
    dateQuestion(
      kind === "transport" ?
        "When should the journey be? Please give the day, and a time if it matters." :
        kind === "appointment" ?
        "When should the appointment be? Please give the day, and a time if it matters." :
        "For when? Please give the day, and a time if it matters."
    )
  }

  if (
    usedZone && zones.zoneFromText && zones.zone !== undefined && !isUtcZone(zones.zone) &&
    (zones.callerZone === undefined || !sameZone(zones.callerZone, zones.zone))
  ) {
    result.constraints.push({ type: "timezone", zone: zones.zone })
  }
}

const readBareTime = (answer: string): Array<WhenReading> => {
  const reader = new Reader(collapse(answer.toWellFormed().normalize("NFKC")))
  const moment = reader.readMoment(0, true)
  if (moment === undefined || moment.end !== reader.tokens.length) return []
  return [{ cue: "on", from: moment.moment }]
}

const instantMs = (timestamp: string): number => {
  const ms = Date.parse(timestamp)
  return Number.isNaN(ms) ? 0 : ms
}

const overlapsWindow = (c: { readonly start: string; readonly end: string }, w: Resolved) =>
  instantMs(c.start) < w.end.ms && w.start.ms < instantMs(c.end)

const dedupeBy = <A>(values: ReadonlyArray<A>, key: (a: A) => unknown): Array<A> => {
  const seen = new Set<unknown>()
  return values.filter((v) => {
    const k = key(v)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

/** Windows inside one another narrow to the innermost ("this weekend ... Saturday at 7pm"); apart, they conflict. */
const narrowWindows = (windows: ReadonlyArray<Resolved>): Array<Resolved> | "conflict" => {
  const sorted = [...windows].sort((a, b) => (a.end.ms - a.start.ms) - (b.end.ms - b.start.ms))
  const narrowest = sorted[0]
  if (narrowest === undefined) return []
  for (const w of sorted) {
    if (w.start.ms > narrowest.start.ms || w.end.ms < narrowest.end.ms) return "conflict"
  }
  return [narrowest]
}

const resolveWhen = (when: WhenReading, clock: Clock): Resolved | Problem => {
  if (when.exactMs !== undefined) {
    const ms = when.exactMs(clock)
    const minute = Math.floor(ms / 60_000) * 60_000
    const start = exactInstant(clock, when.cue === "by" ? ms : minute)
    const end = exactInstant(clock, minute + 60_000)
    if (start === undefined || end === undefined) return { problem: "unreadable", what: when.from.text }
    return when.cue === "by" ? { type: "deadline", start, end: start } : { type: "window", start, end }
  }
  const from = resolveMoment(when.from, clock)
  if (isProblem(from)) return from
  if (when.to !== undefined) {
    const fromDay = when.from.day === undefined ? undefined : from
    const to = resolveMoment(
      when.to.day === undefined && fromDay !== undefined
        ? { ...when.to, day: () => ({ start: from.day, end: from.day + 1 }) }
        : when.to,
      clock
    )
    if (isProblem(to)) return to
    const fromStart = when.from.day === undefined && when.to.day !== undefined ?
      resolveMoment({ ...when.from, day: () => ({ start: to.day, end: to.day + 1 }) }, clock) :
      from
    if (isProblem(fromStart)) return fromStart
    const startLocal = fromStart.start
    const endLocal = when.to.time === undefined ? to.end : to.start
    const start = localInstant(clock, startLocal[0], startLocal[1])
    const end = localInstant(clock, endLocal[0], endLocal[1])
    if (start === undefined || end === undefined) return { problem: "unreadable", what: when.from.text }
    if (end.ms <= start.ms) return { problem: "ambiguous", what: `${when.from.text} to ${when.to.text}` }
    if (end.ms <= clock.nowMs) return { problem: "past", what: `${when.from.text} to ${when.to.text}` }
    return { type: "window", start, end }
  }
  const local = when.cue === "on" ?
    [from.start, from.end] :
    when.cue === "before" ?
    [from.start, from.start] :
    when.from.time === undefined ?
    [from.end, from.end] :
    [from.start, from.start]
  const start = localInstant(clock, local[0]![0], local[0]![1])
  const end = localInstant(clock, local[1]![0], local[1]![1])
  if (start === undefined || end === undefined) return { problem: "unreadable", what: when.from.text }
  if (when.cue === "on") {
    if (end.ms <= clock.nowMs) return { problem: "past", what: when.from.text }
    return { type: "window", start, end }
  }
  if (start.ms <= clock.nowMs) return { problem: "past", what: when.from.text }
  return { type: "deadline", start, end: start }
}

/** A moment as local [day, minutes] bounds: its start and its end. */
const resolveMoment = (
  moment: Moment,
  clock: Clock
):
  | { readonly day: number; readonly start: readonly [number, number]; readonly end: readonly [number, number] }
  | Problem =>
{
  const span = moment.day === undefined ? single(clock.today) : moment.day(clock)
  if (isProblem(span)) return span
  const time = moment.time
  if (time === undefined) return { day: span.start, start: [span.start, 0], end: [span.end, 0] }
  if (span.end - span.start !== 1) return { problem: "ambiguous", what: moment.text }
  if (time === nowTime || time.start < 0) {
    const zoned = DateTime.makeZoned(clock.nowMs, { timeZone: clock.zone })
    const minutes = Option.isNone(zoned)
      ? 0
      : DateTime.toParts(zoned.value).hour * 60 + DateTime.toParts(zoned.value).minute
    return { day: span.start, start: [span.start, minutes], end: [span.start, minutes + 1] }
  }
  const end = time.end === undefined ? time.start + 1 : time.end <= time.start ? time.end + 1440 : time.end
  return { day: span.start, start: [span.start, time.start], end: [span.start, end] }
}
