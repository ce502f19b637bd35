import { Temporal } from "temporal-polyfill"
import type { ConstraintInput, ObjectiveKind } from "../../schema/Constraint.ts"
import type { Findings } from "./Missing.ts"
import type { Shape } from "./Needs.ts"
import type { Words } from "./Text.ts"
import type { When } from "./When.ts"

/**
 * With no `zone` days are read in UTC and clock times wait for one; `answered`: an answer named the time,
 * which replaces the caller's window rather than being checked against it; `noDate`: any time will do;
 * `nights`: "for 3 nights"; `hedge`: words that say the time is not settled ("not sure yet").
 */
export interface TimeContext {
  readonly kind: ObjectiveKind
  readonly shape: Shape
  readonly zone: string | undefined
  readonly zoneConflict: boolean
  readonly zones: ReadonlyArray<string>
  readonly caller: ReadonlyArray<ConstraintInput>
  readonly answered: boolean
  readonly noDate: boolean
  readonly nights: { readonly count: number; readonly words: ReadonlyArray<Words> } | undefined
  readonly hedge: string | undefined
}

/**
 * Whether a window or deadline was read on the zone's clock; whether a clock time waits for a zone; the
 * nights of a stay; and which of the facts an objective may need the times give (Needs.ts): one day, a
 * clock time, an end (check-out, return). `vague`: the words of a time too wide to act on ("next week").
 */
export interface Times {
  readonly used: boolean
  readonly needsZone: boolean
  readonly nights: number | undefined
  /** The words of the stay the nights were counted from. */
  readonly words: ReadonlyArray<Words>
  readonly day: boolean
  readonly time: boolean
  readonly until: boolean
  readonly vague: string | undefined
  /** The person's words for the times kept, quoted. */
  readonly said: string | undefined
}

const stamp = (local: Temporal.PlainDateTime, zone: string | undefined): string => {
  const zoned = local.toZonedDateTime(zone ?? "UTC", { disambiguation: "compatible" })
  return zone === undefined ?
    zoned.toInstant().toString({ smallestUnit: "second" }) :
    zoned.toString({ smallestUnit: "second", timeZoneName: "never" })
}

const ms = (timestamp: string) => Date.parse(timestamp)
const days = (w: When) => w.from.toPlainDate().until(w.to.toPlainDate()).days
const span = (whens: ReadonlyArray<When>, until = whens.at(-1)!): When => ({
  ...whens[0]!,
  to: until.to,
  clock: false,
  words: whens.flatMap((w) => w.words)
})

/** Which of several times are kept, as which windows: a stay or a rental is one, a trip out and back two. */
const keep = (good: ReadonlyArray<When>, ctx: TimeContext): ReadonlyArray<When> | undefined => {
  if (good.length === 1 && ctx.shape === "stay" && ctx.nights !== undefined && !good[0]!.clock) {
    const [w] = good as [When]
    return [{ ...w, to: w.from.add({ days: ctx.nights.count + 1 }), words: [...w.words, ...ctx.nights.words] }]
  }
  if (good.length < 2) return good
  if (!good.slice(1).every((w) => w.linked) || good.some((w) => w.deadline)) return undefined
  if (ctx.shape === "stay") return [span(good)]
  if (ctx.shape === "rental") {
    const [first, last] = [good[0]!, good.at(-1)!]
    return [{ ...span(good), to: last.clock ? last.from : last.to, clock: first.clock && last.clock }]
  }
  return good
}

export const decideTimes = (whens: ReadonlyArray<When>, ctx: TimeContext, result: Findings): Times => {
  const none: Times = {
    used: false,
    needsZone: false,
    nights: undefined,
    words: [],
    day: false,
    time: false,
    until: false,
    vague: undefined,
    said: undefined
  }
  const ask = (text: string) => result.ask("date", text)
  const said = (w: When) => `"${result.evidence(w.words).map((e) => e.text).join(" ") || w.text}"`
  for (const w of whens) {
    if (w.problem === "meridiem") result.ask("time", `Is ${said(w)} in the morning or in the evening?`)
    if (w.problem === "past") ask(`${said(w)} has already passed: when should it be?`)
    if (w.problem === "ambiguous") ask(`Which date is meant by ${said(w)}? Please give the day, for example 12 March.`)
    if (w.problem === "contradiction") ask(`${said(w)} does not exist (the weekday and the date disagree): which day?`)
  }
  const given = ctx.caller.filter((c) => c.type === "window" || c.type === "deadline")
  const all = { ...none, day: true, time: true, until: true }
  if (ctx.noDate || (whens.length === 0 && given.length > 0)) return all
  const good = whens.filter((w) => w.problem === undefined)
  if (ctx.hedge !== undefined && good.length > 0) {
    ask(`You said "${ctx.hedge}": which day should it be, and at what time?`)
    return all
  }
  // "check in 14 Dec, check out 11 Dec": an end before its start.
  const backwards = good.find((w, i) =>
    i > 0 && w.linked && Temporal.PlainDateTime.compare(w.to, good[i - 1]!.from) <= 0
  )
  if (backwards !== undefined && (ctx.shape === "stay" || ctx.shape === "rental")) {
    ask(`${good.map(said).join(" to ")} ends before it starts: which dates are right?`)
    return all
  }
  const kept = keep(good, ctx)
  // "in on the 12th, out on the 15th, so two nights": the dates and the nights cannot both hold.
  const between = ctx.shape === "stay" && good.length >= 2 && kept?.length === 1 ? days(kept[0]!) - 1 : undefined
  if (between !== undefined && ctx.nights !== undefined && between !== ctx.nights.count) {
    ask(
      `${good.map(said).join(" to ")} is ${between} nights, but the request says ${ctx.nights.count}: which is right?`
    )
    return all
  }
  if (kept === undefined) {
    ask(`The request names more than one time (${good.map(said).join(", ")}): which one should it be?`)
    return all
  }
  if (kept.length > 0 && ctx.zoneConflict) {
    result.ask("timezone", `Which time zone should the times be read in: ${ctx.zones.join(" or ")}?`)
    return all
  }
  const wide = kept.find((w) =>
    !w.deadline && (days(w) > 1 || w.wide === true) && ctx.shape !== "stay" && ctx.shape !== "rental"
  )
  const facts = {
    day: kept.some((w) => w.deadline || days(w) <= 1 || ctx.shape === "stay" || ctx.shape === "rental") &&
      wide === undefined,
    // A clock time, a time from now ("in 2 hours", "now"), a range of hours; for a visit, a part of the day.
    time: kept.some((w) =>
      w.clock || w.to.since(w.from).total("minutes") <= 240 || (ctx.kind === "service" && w.dayPart === true)
    ),
    until: kept.some((w) => days(w) > 1 || (ctx.shape === "rental" && w.to.since(w.from).total("hours") > 1)),
    vague: wide === undefined ? undefined : said(wide),
    said: kept.length === 0 ? undefined : kept.map(said).join(", ")
  }
  // The caller's window or deadline gives the day, and the time when it is a few hours at most.
  if (given.length > 0) {
    facts.day = true
    facts.time ||= given.some((c) =>
      c.type === "deadline" || (c.type === "window" && ms(c.end) - ms(c.start) <= 4 * 3_600_000)
    )
  }
  if (ctx.zone === undefined && kept.some((w) => w.clock)) return { ...none, ...facts, needsZone: true }
  let used = false
  for (const w of kept) {
    const [start, end] = [stamp(w.from, ctx.zone), stamp(w.to, ctx.zone)]
    // The caller's window or deadline stands when the words fit it, and is asked about when they do not.
    const callers = given.filter((c) => c.type === (w.deadline ? "deadline" : "window"))
    if (callers.length > 0 && !ctx.answered) {
      const fits = callers.some((c) =>
        c.type === "deadline"
          ? ms(c.by) <= ms(end)
          : c.type === "window" && ms(c.start) < ms(end) && ms(start) < ms(c.end)
      )
      const words = w.deadline ? `by ${end}` : `${start} to ${end}`
      const show = callers.map((
        c
      ) => (c.type === "deadline" ? c.by : c.type === "window" ? `${c.start} to ${c.end}` : ""))
      if (!fits) ask(`The request says ${words} but ${show.join(", ")} was given: when should it be?`)
      continue
    }
    result.add(w.deadline ? { type: "deadline", by: end } : { type: "window", start, end }, w.words)
    used = true
  }
  const stay = kept.find((w) => !w.deadline && !w.clock)
  const nights = stay === undefined ? 0 : days(stay) - 1
  return { ...none, ...facts, used, nights: nights > 0 ? nights : undefined, words: stay?.words ?? [] }
}
