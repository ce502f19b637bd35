import { assert, describe, it } from "@effect/vitest"
import { Temporal } from "temporal-polyfill"
import type { ObjectiveKind } from "../../src/schema/Constraint.ts"
import { readDates } from "../../src/services/interpreter/Dates.ts"

/** Tuesday 10 March 2026, 10:00 on the place's clock. */
const now = Temporal.PlainDateTime.from("2026-03-10T10:00")

/** [words, kind, what is read: "from..to", with " by" for a deadline and " !problem" for one]. */
const table: ReadonlyArray<readonly [string, ObjectiveKind, string]> = [
  ["on Friday at 8pm", "reservation", "2026-03-13T20:00..2026-03-13T20:01"],
  ["TONIGHT AT 9PM", "reservation", "2026-03-10T21:00..2026-03-10T21:01"],
  ["tmrw at 7:30pm", "reservation", "2026-03-11T19:30..2026-03-11T19:31"],
  ["next Thursday at 1 for lunch", "reservation", "2026-03-12T13:00..2026-03-12T13:01"],
  ["next Friday", "transport", "2026-03-13T00:00..2026-03-14T00:00"],
  ["this weekend", "transport", "2026-03-14T00:00..2026-03-16T00:00"],
  ["next week", "appointment", "2026-03-16T00:00..2026-03-23T00:00"],
  ["next month", "reservation", "2026-04-01T00:00..2026-05-01T00:00"],
  ["in 2 hours", "transport", "2026-03-10T12:00..2026-03-10T12:01"],
  ["between 15 and 17 April", "transport", "2026-04-15T00:00..2026-04-18T00:00"],
  ["from 1 to 8 May", "reservation", "2026-05-01T00:00..2026-05-09T00:00"],
  ["delivery by 6pm today", "purchase", "2026-03-10T18:00..2026-03-10T18:00 by"],
  ["before Friday", "purchase", "2026-03-13T00:00..2026-03-13T00:00 by"],
  ["before the weekend", "service", "2026-03-14T00:00..2026-03-14T00:00 by"],
  ["by end of month", "delivery", "2026-04-01T00:00..2026-04-01T00:00 by"],
  ["within 3 days", "delivery", "2026-03-10T10:00..2026-03-13T10:00 by"],
  ["in a fortnight", "appointment", "2026-03-24T00:00..2026-03-25T00:00"],
  ["on 12/03 at 8pm", "reservation", "2026-03-10T20:00..2026-03-10T20:01 !ambiguous"],
  ["on 25/03", "reservation", "2026-03-25T00:00..2026-03-26T00:00"],
  ["on Friday the 13th", "reservation", "2026-03-13T00:00..2026-03-14T00:00"],
  ["on the 20th at 6pm", "reservation", "2026-03-20T18:00..2026-03-20T18:01"],
  ["on Friday 14 March", "reservation", "2026-03-14T00:00..2026-03-15T00:00 !contradiction"],
  ["dinner at 8 on Friday", "reservation", "2026-03-13T20:00..2026-03-13T20:01"],
  ["at 7", "transport", "2026-03-10T07:00..2026-03-10T07:01 !meridiem"],
  ["haircut at 3 tomorrow", "appointment", "2026-03-11T15:00..2026-03-11T15:01"],
  ["today at 7am", "transport", "2026-03-10T07:00..2026-03-10T07:01 !past"],
  ["yesterday", "transport", "2026-03-09T00:00..2026-03-10T00:00 !past"],
  ["on 3 March", "reservation", "2027-03-03T00:00..2027-03-04T00:00"],
  ["at 7pm or 8pm on Friday", "reservation", "2026-03-13T19:00..2026-03-13T20:01"],
  ["between 7 and 9pm tomorrow", "reservation", "2026-03-11T19:00..2026-03-11T21:00"],
  ["half past 7 tomorrow evening", "reservation", "2026-03-11T19:30..2026-03-11T19:31"],
  ["this weekend, Saturday at 7pm", "reservation", "2026-03-14T19:00..2026-03-14T19:01"],
  ["asap", "transport", "2026-03-10T10:00..2026-03-10T10:01"]
]

const show = (w: ReturnType<typeof readDates>["whens"][number]) =>
  `${w.from.toString().slice(0, 16)}..${w.to.toString().slice(0, 16)}${w.deadline ? " by" : ""}${
    w.problem === undefined ? "" : ` !${w.problem}`
  }`

describe("Dates", () => {
  for (const [words, kind, expected] of table) {
    it(words, () => assert.deepStrictEqual(readDates(words, now, kind).whens.map(show), [expected]))
  }

  it("reads nothing in amounts, counts and addresses", () => {
    for (const words of ["120 to 150 CHF", "for 4 people", "at 5 Main Street", "2 weeks of holiday money"]) {
      assert.deepStrictEqual(readDates(words, now, "purchase").whens.map(show), [], words)
    }
  })

  it("keeps two days apart when they are two legs of a journey", () => {
    assert.strictEqual(readDates("Friday at 9am, back Sunday at 6pm", now, "transport").whens.length, 2)
  })
})
