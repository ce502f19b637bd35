import * as Schema from "effect/Schema"
import { Money } from "./Money.ts"

const timestampPattern =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:Z|([+-])([0-9]{2}):([0-9]{2}))$/

/**
 * The instant an RFC 3339 timestamp names, as [epoch milliseconds of its whole second, nanoseconds], or
 * undefined when the text is not one: the calendar date must exist and the offset be at most 23:59.
 * Leap seconds (`:60`) are refused: nothing downstream can represent them.
 */
export const timestampInstant = (s: string): readonly [number, number] | undefined => {
  const m = timestampPattern.exec(s)
  if (m === null) return undefined
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number
  ]
  const offsetHours = m[9] === undefined ? 0 : Number(m[9])
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10])
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined
  const sign = m[8] === "-" ? -1 : 1
  const local = (daysFromCivil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second) * 1000
  const nanos = m[7] === undefined ? 0 : Number(m[7].padEnd(9, "0"))
  return [local - sign * (offsetHours * 60 + offsetMinutes) * 60_000, nanos]
}

/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's algorithm): exact for any year. */
export const daysFromCivil = (year: number, month: number, day: number): number => {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

export const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

export const daysInMonth = (year: number, month: number): number =>
  month === 2 ? (isLeapYear(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/** An RFC 3339 date-time with an offset (`Z` or `±hh:mm`), upper-case `T` and `Z`. */
export const Timestamp = Schema.String.check(
  Schema.makeFilter((s: string) => timestampInstant(s) !== undefined, {
    expected: "an RFC 3339 timestamp with an offset, such as \"2026-03-12T19:00:00+01:00\"",
    toJsonSchema: () => ({ format: "date-time" })
  })
).annotate({ identifier: "Timestamp" })

const compareInstants = (a: readonly [number, number], b: readonly [number, number]) =>
  a[0] === b[0] ? a[1] - b[1] : a[0] - b[0]

const ianaPattern = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/

/**
 * Names found valid, the first `maxKnownZones` of them: asking the runtime costs about half a
 * millisecond (it builds a `DateTimeFormat`), and every Job read from the store or shown checks its time
 * zones again. The bound keeps out the spellings a caller can invent (a legacy link in any case is
 * valid); a name found invalid is not kept.
 */
const knownZones = new Set<string>()
const maxKnownZones = 1000

/**
 * An IANA time zone name the runtime knows. Case must be as IANA spells it; a legacy link such as
 * `US/Eastern` is a valid name too.
 */
export const isTimeZoneName = (s: string): boolean => {
  if (knownZones.has(s)) return true
  if (s.length > 64 || !ianaPattern.test(s)) return false
  let resolved: string
  try {
    resolved = new Intl.DateTimeFormat("en-US", { timeZone: s }).resolvedOptions().timeZone
  } catch {
    return false
  }
  const known = resolved === s || resolved.toLowerCase() !== s.toLowerCase()
  if (known && knownZones.size < maxKnownZones) knownZones.add(s)
  return known
}

export const TimeZoneName = Schema.String.check(
  Schema.makeFilter(isTimeZoneName, {
    expected: "an IANA time zone name such as \"Europe/Lisbon\"",
    toJsonSchema: () => ({ minLength: 1, maxLength: 64, pattern: ianaPattern.source })
  })
).annotate({ identifier: "TimeZoneName" })

const Text = (maxCodePoints: number) =>
  Schema.String.check(
    Schema.makeFilter((s: string) => s.isWellFormed(), { expected: "well-formed Unicode text" }),
    Schema.isTrimmed(),
    Schema.isMinLength(1),
    Schema.isMaxCodePoints(maxCodePoints)
  )

export const placeMaxLength = 200
export const unitMaxLength = 40
export const noteMaxLength = 2000
/**
 * The largest count a quantity may name: far beyond any one request a person makes, and small enough
 * that any price per unit times it is still an amount the contract can write (15 integer digits).
 */
export const quantityMax = 1_000_000

export const BudgetInput = Schema.Struct({ type: Schema.Literal("budget"), max: Money })
export const DeadlineInput = Schema.Struct({ type: Schema.Literal("deadline"), by: Timestamp })
const startsBeforeEnd = Schema.makeFilter(({ end, start }: { readonly start: string; readonly end: string }) => {
  const a = timestampInstant(start)
  const b = timestampInstant(end)
  return a !== undefined && b !== undefined && compareInstants(a, b) < 0
}, { expected: "a window whose start is before its end" })
export const WindowInput = Schema.Struct({ type: Schema.Literal("window"), start: Timestamp, end: Timestamp }).check(
  startsBeforeEnd
)
export const LocationInput = Schema.Struct({ type: Schema.Literal("location"), place: Text(placeMaxLength) })
export const QuantityInput = Schema.Struct({
  type: Schema.Literal("quantity"),
  count: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: quantityMax })),
  unit: Schema.optionalKey(Text(unitMaxLength))
})
export const TimezoneInput = Schema.Struct({ type: Schema.Literal("timezone"), zone: TimeZoneName })
export const NoteInput = Schema.Struct({ type: Schema.Literal("note"), text: Text(noteMaxLength) })

/**
 * A constraint as a caller sends it (docs/API.md, "Operations"). Decode it with
 * `decodeConstraintInput` (or any decoder given `strictParseOptions`): a key the type does not name is
 * then an error, not silently dropped.
 */
export const ConstraintInput = Schema.Union([
  BudgetInput,
  DeadlineInput,
  WindowInput,
  LocationInput,
  QuantityInput,
  TimezoneInput,
  NoteInput
]).annotate({ identifier: "ConstraintInput" })
export type ConstraintInput = typeof ConstraintInput.Type

/**
 * Excess keys are errors: the contract answers anything but the listed members with 422. Issues keep the
 * input they refused, so that a message can say what was wrong with it (`Job.describeIssue`).
 */
export const strictParseOptions = { onExcessProperty: "error", reportInput: true } as const

export const decodeConstraintInput = Schema.decodeUnknownResult(ConstraintInput, strictParseOptions)

export const ConstraintSource = Schema.Literals(["caller", "interpreted"])
export type ConstraintSource = typeof ConstraintSource.Type

/**
 * The words a fact was read from: code points `start` (inclusive) to `end` (exclusive) of the request,
 * or, with `revision` and `questionId`, of the answer to that question that made that revision; `text` is
 * exactly those code points.
 */
export const Evidence = Schema.Struct({
  text: Schema.String.check(Schema.isMinLength(1)),
  start: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  end: Schema.Int.check(Schema.isGreaterThan(0)),
  revision: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThan(0))),
  /** With `revision`: which of that revision's answers (several questions can be answered at once). */
  questionId: Schema.optionalKey(Schema.String)
}).check(
  Schema.makeFilter(
    ({ end, start, text }: { readonly start: number; readonly end: number; readonly text: string }) =>
      end > start && Array.from(text).length === end - start,
    {
      expected: "a span whose end is after its start and whose text has end - start code points"
    }
  )
).annotate({ identifier: "Evidence" })
export type Evidence = typeof Evidence.Type

/** Every interpreted fact carries the words it came from; a caller's constraint never does. */
export const EvidenceList = Schema.NonEmptyArray(Evidence).annotate({ identifier: "EvidenceList" })

const serverFields = { id: Schema.String, source: ConstraintSource, evidence: Schema.optionalKey(EvidenceList) }

/** A constraint as the Job shows it: the server names it and says where it came from. */
export const Constraint = Schema.Union([
  Schema.Struct({ ...BudgetInput.fields, ...serverFields }),
  Schema.Struct({ ...DeadlineInput.fields, ...serverFields }),
  Schema.Struct({ ...WindowInput.fields, ...serverFields }).check(startsBeforeEnd),
  Schema.Struct({ ...LocationInput.fields, ...serverFields }),
  // Jobs stored before counts were bounded keep theirs, and are shown as they are.
  Schema.Struct({ ...QuantityInput.fields, count: Schema.Int.check(Schema.isGreaterThan(0)), ...serverFields }),
  Schema.Struct({ ...TimezoneInput.fields, ...serverFields }),
  Schema.Struct({ ...NoteInput.fields, ...serverFields })
]).annotate({ identifier: "Constraint" })
export type Constraint = typeof Constraint.Type

/**
 * What the User wants done, by the kind of commitment it takes, since that decides which facts are
 * needed before anything can be proposed:
 * - `purchase`: buying goods or tickets for an event (groceries, gifts, concert tickets); needs nothing more.
 * - `reservation`: holding a place for a time (a restaurant table, a hotel room, a rental car); needs a date.
 * - `appointment`: a slot with a person who serves the User (doctor, dentist, haircut); needs a date.
 * - `transport`: moving people (flights, trains, buses, taxis, ferries); needs a date.
 * - `delivery`: moving the User's goods (a courier, shipping a parcel).
 * - `service`: work done for the User (repairs, cleaning, installing, moving house).
 * - `other`: anything else, kept rather than forced into a wrong kind.
 * "Booking" is not a kind: one books a table, a flight and a haircut, which differ in what they need.
 */
export const ObjectiveKind = Schema.Literals([
  "purchase",
  "reservation",
  "appointment",
  "transport",
  "delivery",
  "service",
  "other"
])
export type ObjectiveKind = typeof ObjectiveKind.Type

export const summaryMaxLength = 200

export const Objective = Schema.Struct({
  kind: ObjectiveKind,
  summary: Text(summaryMaxLength),
  /** The words that decided `kind`. */
  evidence: Schema.optionalKey(EvidenceList)
}).annotate({ identifier: "Objective" })
export type Objective = typeof Objective.Type

/**
 * What a question asks for. Its id is derived from this (`q_` + the words joined by `_`), so an answer
 * keeps its meaning across revisions: the same missing fact is always the same question.
 */
export const QuestionAbout = Schema.Literals([
  "objective",
  "budget",
  "budget.amount",
  "budget.currency",
  "date",
  "time",
  "timezone",
  "quantity",
  "quantity.people",
  "location",
  "location.from",
  "location.to",
  "event",
  "offers"
])
export type QuestionAbout = typeof QuestionAbout.Type

export const questionId = (about: QuestionAbout): string => `q_${about.replaceAll(".", "_")}`

export const Question = Schema.Struct({
  id: Schema.String.check(Schema.isPattern(/^q_[a-z0-9_]{1,60}$/u)),
  text: Text(500),
  about: Schema.optionalKey(QuestionAbout)
}).annotate({ identifier: "Question" })
export type Question = typeof Question.Type
