import type { Temporal } from "temporal-polyfill"
import type { ConstraintInput, ObjectiveKind } from "../../schema/Constraint.ts"
import type { When } from "./Dates.ts"
import type { Findings } from "./Missing.ts"
import type { Words } from "./Text.ts"

/**
 * With no `zone` days are read in UTC and clock times wait for one; `answered`: an answer named the time,
 * which replaces the caller's window rather than being checked against it; `noDate`: any time will do.
 */
export interface TimeContext {
  readonly kind: ObjectiveKind
  readonly zone: string | undefined
  readonly zoneConflict: boolean
  readonly zones: ReadonlyArray<string>
  readonly returnTrip: boolean
  readonly caller: ReadonlyArray<ConstraintInput>
  readonly answered: boolean
  readonly noDate: boolean
}

/** Whether a window or deadline was read on the zone's clock, a clock time waits for a zone, and the nights of a stay. */
export interface Times {
  readonly used: boolean
  readonly needsZone: boolean
  readonly nights: number | undefined
  /** The words of the stay the nights were counted from. */
  readonly words: ReadonlyArray<Words>
}

const stamp = (local: Temporal.PlainDateTime, zone: string | undefined): string => {
  const zoned = local.toZonedDateTime(zone ?? "UTC", { disambiguation: "compatible" })
  return zone === undefined ?
    zoned.toInstant().toString({ smallestUnit: "second" }) :
    zoned.toString({ smallestUnit: "second", timeZoneName: "never" })
}

const ms = (timestamp: string) => Date.parse(timestamp)
const dayQuestion = {
  transport: "When should the journey be?",
  appointment: "When should it be?",
  reservation: "For when?"
}

export const decideTimes = (whens: ReadonlyArray<When>, ctx: TimeContext, result: Findings): Times => {
  const none: Times = { used: false, needsZone: false, nights: undefined, words: [] }
  const ask = (text: string) => result.ask("date", text)
  for (const w of whens) {
    if (w.problem === "meridiem") result.ask("time", `Is ${w.text} in the morning or in the evening?`)
    if (w.problem === "past") ask(`"${w.text}" has already passed: when should it be?`)
    if (w.problem === "ambiguous") ask(`Which date is meant by "${w.text}"? Please give the day, for example 12 March.`)
    if (w.problem === "contradiction") ask(`"${w.text}" does not exist (the weekday and the date disagree): which day?`)
  }
  const given = ctx.caller.filter((c) => c.type === "window" || c.type === "deadline")
  if (ctx.noDate || (whens.length === 0 && given.length > 0)) return none
  const question = dayQuestion[ctx.kind as "transport"] as string | undefined
  if (whens.length === 0 && question !== undefined) ask(`${question} Please give the day, and a time if it matters.`)
  const good = whens.filter((w) => w.problem === undefined)
  if (good.length > 1 && !(ctx.kind === "transport" && ctx.returnTrip && good.length === 2)) {
    ask(`The request names more than one time (${good.map((w) => w.text).join(", ")}): when should it be?`)
    return none
  }
  if (good.length > 0 && ctx.zoneConflict) {
    result.ask("timezone", `Which time zone should the times be read in: ${ctx.zones.join(" or ")}?`)
    return none
  }
  if (ctx.zone === undefined && good.some((w) => w.clock)) return { ...none, needsZone: true }
  let used = false
  for (const w of good) {
    const [start, end] = [stamp(w.from, ctx.zone), stamp(w.to, ctx.zone)]
    // The caller's window or deadline stands when the words fit it, and is asked about when they do not.
    const callers = given.filter((c) => c.type === (w.deadline ? "deadline" : "window"))
    if (callers.length > 0 && !ctx.answered) {
      const fits = callers.some((c) =>
        c.type === "deadline"
          ? ms(c.by) <= ms(end)
          : c.type === "window" && ms(c.start) < ms(end) && ms(start) < ms(c.end)
      )
      const said = w.deadline ? `by ${end}` : `${start} to ${end}`
      const show = callers.map((
        c
      ) => (c.type === "deadline" ? c.by : c.type === "window" ? `${c.start} to ${c.end}` : ""))
      if (!fits) ask(`The request says ${said} but ${show.join(", ")} was given: when should it be?`)
      continue
    }
    result.add(w.deadline ? { type: "deadline", by: end } : { type: "window", start, end }, w.words)
    used = true
  }
  const stay = good.find((w) => !w.deadline && !w.clock)
  const days = stay === undefined ? 0 : stay.from.toPlainDate().until(stay.to.toPlainDate()).days
  return { used, needsZone: false, nights: days > 1 ? days - 1 : undefined, words: stay?.words ?? [] }
}
