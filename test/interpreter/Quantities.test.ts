import { assert, describe, it } from "@effect/vitest"
import { readCounts } from "../../src/services/interpreter/Quantities.ts"

const table: ReadonlyArray<readonly [string, ReadonlyArray<readonly [number, string]>]> = [
  ["Book a table for 4 at Cervejaria Ramiro", [[4, "people"]]],
  ["a resturant for 6 ppl tmrw", [[6, "people"]]],
  ["Dinner reservation for two at Noma", [[2, "people"]]],
  ["Lunch for 8 colleagues", [[8, "people"]]],
  ["party of 6", [[6, "people"]]],
  ["3 of us", [[3, "people"]]],
  ["2 adults and 2 kids", [[4, "people"]]],
  ["me and my wife", [[2, "people"]]],
  ["a 4 star hotel for 2", [[2, "people"]]],
  ["Two train tickets from Paris", [[2, "train tickets"]]],
  ["Buy a dozen eggs, 2 litres of milk and a loaf of bread", [[12, "eggs"], [2, "litres of milk"]]],
  ["3 bottles of red wine under 60 euros", [[3, "bottles of red wine"]]],
  ["2 rooms, under", [[2, "rooms"]]],
  ["for 3 nights from 28 March", [[3, "nights"]]],
  ["install 4 ceiling lights", [[4, "ceiling lights"]]],
  ["1 bottle of gin", [[1, "bottle of gin"]]],
  ["in 2 hours", []]
]

describe("Quantities", () => {
  for (const [words, counts] of table) {
    it(words, () => assert.deepStrictEqual<unknown>(readCounts(words).map((c) => [c.count, c.unit]), counts))
  }
})
