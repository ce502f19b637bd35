import { assert, describe, it } from "@effect/vitest"
import type { ObjectiveKind } from "../../src/schema/Constraint.ts"
import { readKind } from "../../src/services/interpreter/Kinds.ts"

const table: ReadonlyArray<readonly [string, ObjectiveKind]> = [
  ["Book a table for 4", "reservation"],
  ["Hotel in Kyoto", "reservation"],
  ["Rent a car in Reno", "reservation"],
  ["Buy train tickets to Lyon", "transport"],
  ["Taxi to the restaurant", "transport"],
  ["Book a doctor's appointment", "appointment"],
  ["Haircut on Saturday", "appointment"],
  ["Book an appointment for a car service", "service"],
  ["Get my car serviced", "service"],
  ["My sink is leaking", "service"],
  ["Movers on Saturday", "service"],
  ["Send flowers to my mum", "purchase"],
  ["buy two tickets for the Coldplay concert", "purchase"],
  ["Buy a good book", "purchase"],
  ["order groceries for delivery", "purchase"],
  ["Deliver a sofa to Lisbon", "delivery"],
  ["Send a parcel to Hamburg", "delivery"],
  ["Meet the team at the train station", "other"]
]

describe("Kinds", () => {
  for (const [words, kind] of table) it(words, () => assert.strictEqual(readKind(words), kind))
})
