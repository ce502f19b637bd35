import { assert, describe, it } from "@effect/vitest"
import { formatAmount, readMoney, resolveCurrency } from "../../src/services/interpreter/Money.ts"

/** [words, amount, currency (a code, a family, or "-" for none), per]. */
const table: ReadonlyArray<readonly [string, string, string, string?]> = [
  ["under €300", "300", "EUR"],
  ["max 600 USD", "600", "USD"],
  ["no more than 120 EUR", "120", "EUR"],
  ["budget £40", "40", "GBP"],
  ["under 60 Euros", "60", "EUR"],
  ["under ¥40,000 per night", "40000", "yen", "night"],
  ["€50 per person", "50", "EUR", "person"],
  ["max €50 a head", "50", "EUR", "head"],
  ["£20 an hour", "20", "GBP", "hour"],
  ["5 dollars each", "5", "dollar", "item"],
  ["under 1.5k USD", "1500", "USD"],
  ["between 400 and 600 dollars", "600", "dollar"],
  ["$100-$200", "200", "dollar"],
  ["under 1.200 euros", "ambiguous", "EUR"],
  ["1.200,50 EUR", "1200.50", "EUR"],
  ["1,200.50 EUR", "1200.50", "EUR"],
  ["200 Canadian dollars", "200", "CAD"],
  ["R$ 300", "300", "BRL"],
  ["500 Swedish kronor", "500", "SEK"],
  ["at most 200 on a gift", "200", "-"],
  ["budget 80 for 4 people", "80", "-"]
]

describe("Money", () => {
  for (const [words, amount, currency, per] of table) {
    it(words, () => {
      const [m, ...rest] = readMoney(words)
      assert.deepStrictEqual(rest, [])
      const code = m?.currency === undefined ? "-" : "code" in m.currency ? m.currency.code : m.currency.family
      assert.deepStrictEqual([m?.amount, code, m?.per], [amount, currency, per])
    })
  }

  it("reads no money in times, counts and minimums", () => {
    for (const words of ["for 4 at 8", "under 30 minutes", "over 100 euros", "table for 2 at 7pm"]) {
      assert.deepStrictEqual(readMoney(words), [], words)
    }
  })

  it("knows which dollar by the place, and writes minor units", () => {
    assert.strictEqual(resolveCurrency({ family: "dollar" }, ["CA"]), "CAD")
    assert.strictEqual(resolveCurrency({ family: "dollar" }, ["PT"]), "USD")
    assert.strictEqual(resolveCurrency({ family: "yen" }, ["JP", "JP"]), "JPY")
    assert.deepStrictEqual(
      [
        formatAmount("1500", "USD"),
        formatAmount("40000", "JPY", 3),
        formatAmount("12.5", "EUR", 4),
        formatAmount("1.23456", "USD")
      ],
      ["1500.00", "120000", "50.00", "too-precise"]
    )
  })
})
