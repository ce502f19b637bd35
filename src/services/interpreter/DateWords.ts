import { daysFromCivil, daysInMonth } from "../../schema/Constraint.ts"
import type { Clock, Problem } from "./Calendar.ts"
import { civilFromDays } from "./Calendar.ts"

// ---------------------------------------------------------------------------------------------------
// Dates and times as read, before a zone turns them into instants.

/** Local days [start, end). */
export interface DaySpan {
  readonly start: number
  readonly end: number
}

export type DaySpec = (clock: Clock) => DaySpan | Problem

/** Minutes since local midnight; `ambiguous` when written without am/pm on a 12-hour clock. */
export interface TimeSpec {
  readonly start: number
  readonly end?: number
  readonly ambiguous: boolean
  readonly text: string
}

export type Hint = "am" | "pm" | "lunch"

export interface Moment {
  readonly day?: DaySpec
  readonly time?: TimeSpec
  readonly hint?: Hint
  readonly text: string
}

export type Cue = "on" | "by" | "before"

export interface WhenReading {
  readonly cue: Cue
  readonly from: Moment
  readonly to?: Moment
  /** An exact instant ("in 20 minutes", "within 2 hours"), zone-independent. */
  readonly exactMs?: (clock: Clock) => number
}

export const months: Record<string, number> = {}
const monthNames: ReadonlyArray<ReadonlyArray<string>> = [
  ["january", "jan", "janeiro", "enero", "janvier", "januar", "gennaio"],
  ["february", "feb", "fevereiro", "febrero", "février", "fevrier", "februar", "febbraio"],
  ["march", "mar", "março", "marco", "marzo", "mars", "märz", "marz"],
  ["april", "apr", "abril", "avril", "aprile"],
  ["may", "maio", "mayo", "mai", "maggio"],
  ["june", "jun", "junho", "junio", "juin", "juni", "giugno"],
  ["july", "jul", "julho", "julio", "juillet", "juli", "luglio"],
  ["august", "aug", "agosto", "août", "aout"],
  ["september", "sep", "sept", "setembro", "septiembre", "setiembre", "septembre", "settembre"],
  ["october", "oct", "outubro", "octubre", "octobre", "oktober", "ottobre"],
  ["november", "nov", "novembro", "noviembre", "novembre"],
  ["december", "dec", "dezembro", "diciembre", "décembre", "decembre", "dezember", "dicembre"]
]
monthNames.forEach((names, index) => names.forEach((name) => months[name] = index + 1))

export const weekdays: Record<string, number> = {
  sunday: 0,
  monday: 1,
  tuesday: 2,
  wednesday: 3,
  thursday: 4,
  friday: 5,
  saturday: 6
}
export const weekdayAbbreviations: Record<string, number> = {
  sun: 0,
  mon: 1,
  tue: 2,
  tues: 2,
  wed: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  fri: 5,
  sat: 6
}

export const dayWords = new Set(["today", "tonight", "tomorrow", "tmrw", "tmr", "tomorow", "tommorow", "tommorrow"])
export const timeUnits: Record<string, "minute" | "hour" | "day" | "week" | "month"> = {
  minute: "minute",
  minutes: "minute",
  mins: "minute",
  min: "minute",
  hour: "hour",
  hours: "hour",
  hrs: "hour",
  hr: "hour",
  day: "day",
  days: "day",
  week: "week",
  weeks: "week",
  fortnight: "week",
  month: "month",
  months: "month"
}

export const single = (start: number): DaySpan => ({ start, end: start + 1 })

/** The next date on or after today with this month and day (a year is skipped when it lacks the day). */
export const nextMonthDay = (today: number, month: number, day: number): number | undefined => {
  const { y } = civilFromDays(today)
  for (let year = y; year <= y + 8; year++) {
    if (day > daysInMonth(year, month)) continue
    const candidate = daysFromCivil(year, month, day)
    if (candidate >= today) return candidate
  }
  return undefined
}
