import { DateTime, Option } from "effect"
import { daysFromCivil, daysInMonth } from "../../schema/Constraint.ts"

// ---------------------------------------------------------------------------------------------------
// Calendar arithmetic on days since 1970-01-01 (local civil days) and minutes since local midnight.

export const civilFromDays = (days: number): { readonly y: number; readonly m: number; readonly d: number } => {
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d }
}

/** 0 is Sunday. */
export const weekdayOf = (days: number) => (((days + 4) % 7) + 7) % 7

export const addMonths = (days: number, months: number): number => {
  const { d, m, y } = civilFromDays(days)
  const total = y * 12 + (m - 1) + months
  const ny = Math.floor(total / 12)
  const nm = total - ny * 12 + 1
  return daysFromCivil(ny, nm, Math.min(d, daysInMonth(ny, nm)))
}

export interface Clock {
  readonly zone: string
  /** createdAt's local day. */
  readonly today: number
  readonly nowMs: number
  /** Zone arithmetic is the costly part: a long request repeats the same local times. */
  readonly instants: Map<number, Instant | undefined>
}

export type Problem = { readonly problem: "ambiguous" | "past" | "unreadable"; readonly what: string }
export const isProblem = (u: unknown): u is Problem => typeof u === "object" && u !== null && "problem" in u

export interface Instant {
  readonly ms: number
  readonly iso: string
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

const formatZoned = (zoned: DateTime.Zoned, utc: boolean): string | undefined => {
  const p = DateTime.toParts(zoned)
  if (p.year < 1 || p.year > 9999) return undefined
  const offset = Math.round(DateTime.zonedOffset(zoned) / 60_000)
  const sign = offset < 0 ? "-" : "+"
  const abs = Math.abs(offset)
  const zone = utc && offset === 0 ? "Z" : `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${zone}`
}

export const isUtcZone = (zone: string) => zone === "UTC" || zone === "Etc/UTC"

/** Local wall time to an instant; a time skipped by a DST change moves forward, as clocks do. */
export const localInstant = (clock: Clock, days: number, minutes: number): Instant | undefined => {
  const key = days * 1440 + minutes
  if (clock.instants.has(key)) return clock.instants.get(key)
  const instant = computeLocalInstant(clock, days, minutes)
  clock.instants.set(key, instant)
  return instant
}

const computeLocalInstant = (clock: Clock, days: number, minutes: number): Instant | undefined => {
  const day = days + Math.floor(minutes / 1440)
  const rest = ((minutes % 1440) + 1440) % 1440
  const { d, m, y } = civilFromDays(day)
  if (y < 1 || y > 9999) return undefined
  const zoned = DateTime.makeZoned({ year: y, month: m, day: d, hour: Math.floor(rest / 60), minute: rest % 60 }, {
    timeZone: clock.zone,
    adjustForTimeZone: true,
    disambiguation: "compatible"
  })
  if (Option.isNone(zoned)) return undefined
  const iso = formatZoned(zoned.value, isUtcZone(clock.zone))
  return iso === undefined ? undefined : { ms: DateTime.toEpochMillis(zoned.value), iso }
}

export const exactInstant = (clock: Clock, ms: number): Instant | undefined => {
  const zoned = DateTime.makeZoned(ms, { timeZone: clock.zone })
  if (Option.isNone(zoned)) return undefined
  const iso = formatZoned(zoned.value, isUtcZone(clock.zone))
  return iso === undefined ? undefined : { ms, iso }
}

export const makeClock = (createdAt: DateTime.Utc, zone: string): Clock | undefined => {
  const zoned = DateTime.makeZoned(createdAt, { timeZone: zone })
  if (Option.isNone(zoned)) return undefined
  const p = DateTime.toParts(zoned.value)
  return {
    zone,
    today: daysFromCivil(p.year, p.month, p.day),
    nowMs: DateTime.toEpochMillis(createdAt),
    instants: new Map()
  }
}
