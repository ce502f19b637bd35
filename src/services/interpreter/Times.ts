import type { Temporal } from "temporal-polyfill"
import type { ConstraintInput, ObjectiveKind } from "../../schema/Constraint.ts"
import type { When } from "./Dates.ts"
import type { Findings } from "./Missing.ts"

export interface TimeContext {
  readonly kind: ObjectiveKind
  /** Undefined when the words give no zone: days are then read in UTC, and clock times wait for one. */
  readonly zone: string | undefined
  readonly zoneConflict: boolean
  readonly zones: ReadonlyArray<string>
  readonly returnTrip: boolean
  readonly caller: ReadonlyArray<ConstraintInput>
  /** An answer named the time: it replaces the caller's window rather than being checked against it. */
  readonly answered: boolean
  /** The person said any time will do. */
  readonly noDate: boolean
}

export interface Times {
  /** A window or deadline was read on the zone's clock. */
  readonly used: boolean
  /** A clock time waits for a time zone. */
  readonly needsZone: boolean
  /** Nights a stay spans, for a budget per night. */
  readonly nights: number | undefined
}

const needsDate: ReadonlyArray<ObjectiveKind> = ["reservation", "appointment", "transport"]

const stamp = (local: Temporal.PlainDateTime, zone: string | undefined): string => {
  const zoned = local.toZonedDateTime(zone ?? "UTC", { disambiguation: "compatible" })
  return zone === undefined ?
    zoned.toInstant().toString({ smallestUnit: "second" }) :
    zoned.toString({ smallestUnit: "second", timeZoneName: "never" })
}

const ms = (timestamp: string) => Date.parse(timestamp)

/** The windows and deadlines the times make, and the questions about dates, times and zones they raise. */
export const decideTimes = (whens: ReadonlyArray<When>, ctx: TimeContext, result: Findings): Times => {
  const none: Times = { used: false, needsZone: false, nights: undefined }
  const callerWindows = ctx.caller.flatMap((c) => (c.type === "window" ? [c] : []))
  const callerDeadlines = ctx.caller.flatMap((c) => (c.type === "deadline" ? [c] : []))
  const ask = (text: string) => result.ask("date", text)
  for (const w of whens) {
    if (w.problem === "meridiem") result.ask("time", `Is ${w.text} in the morning or in the evening?`)
    if (w.problem === "past") ask(`"${w.text}" has already passed: when should it be?`)
    if (w.problem === "ambiguous") {
      ask(`Which date is meant by "${w.text}"? Please give the day, for example 12 March, and a time if it matters.`)
    }
    if (w.problem === "contradiction") ask(`"${w.text}" does not exist (the weekday and the date disagree): which day?`)
  }
  const good = whens.filter((w) => w.problem === undefined)
  if (ctx.noDate) return none
  if (whens.length === 0) {
    if (needsDate.includes(ctx.kind) && callerWindows.length === 0 && callerDeadlines.length === 0) {
      ask(
        ctx.kind === "transport" ?
          "When should the journey be? Please give the day, and a time if it matters." :
          ctx.kind === "appointment" ?
          "When should the appointment be? Please give the day, and a time if it matters." :
          "For when? Please give the day, and a time if it matters."
      )
    }
    return none
  }
  if (good.length === 0) return none
  if (good.length > 1 && !(ctx.kind === "transport" && ctx.returnTrip && good.length === 2)) {
    ask(`The request names more than one time (${good.map((w) => w.text).join(", ")}): when should it be?`)
    return none
  }
  if (ctx.zoneConflict) {
    result.ask("timezone", `Which time zone should the times be read in: ${ctx.zones.join(" or ")}?`)
    return none
  }
  if (ctx.zone === undefined && good.some((w) => w.clock)) return { ...none, needsZone: true }
  let used = false
  for (const w of good) {
    const start = stamp(w.from, ctx.zone)
    const end = stamp(w.to, ctx.zone)
    if (w.deadline) {
      const stricter = callerDeadlines.some((c) => ms(c.by) <= ms(end))
      if (callerDeadlines.length > 0 && !ctx.answered) {
        if (!stricter) {
          ask(
            `The request says by ${end} but the deadline given is ${
              callerDeadlines.map((c) => c.by).join(", ")
            }: by when?`
          )
        }
        continue
      }
      result.constraints.push({ type: "deadline", by: end })
    } else {
      if (callerWindows.length > 0 && !ctx.answered) {
        const overlaps = callerWindows.some((c) => ms(c.start) < ms(end) && ms(start) < ms(c.end))
        if (!overlaps) {
          ask(
            `The request says ${start} to ${end} but the window given is ${
              callerWindows.map((c) => `${c.start} to ${c.end}`).join(", ")
            }: when should it be?`
          )
        }
        continue
      }
      result.constraints.push({ type: "window", start, end })
    }
    used = true
  }
  const stay = good.find((w) => !w.deadline && !w.clock)
  const days = stay === undefined ? 0 : stay.from.toPlainDate().until(stay.to.toPlainDate()).days
  return { used, needsZone: false, nights: days > 1 ? days - 1 : undefined }
}
