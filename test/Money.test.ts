import { assert, describe, it } from "@effect/vitest"
import { BigDecimal, Option, Schema } from "effect"
import fc from "fast-check"
import * as Money from "../src/schema/Money.ts"

/**
 * The money module: amounts read, compared, multiplied and written back exactly. The arithmetic it
 * replaced (amounts as whole numbers of ten-thousandths or of minor units, in bigint) is kept here as
 * the oracle the module must agree with.
 */

const oracle = {
  /** Ten-thousandths, the finest minor unit in ISO 4217. */
  units: (amount: string): bigint => {
    const [whole = "0", fraction = ""] = amount.split(".")
    return BigInt(whole) * 10_000n + BigInt(fraction.padEnd(4, "0").slice(0, 4))
  },
  minorUnits: (currency: string) =>
    new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2,
  formatAmount: (amount: string, currency: string, times: number): string => {
    const [int = "0", frac = ""] = amount.split(".")
    const digits = Math.max(oracle.minorUnits(currency), frac.replace(/0+$/, "").length)
    if (digits > 4) return "too-precise"
    const units = BigInt(`${int}${frac.padEnd(digits, "0").slice(0, digits)}`) * BigInt(times)
    const s = units.toString().padStart(digits + 1, "0")
    const whole = s.slice(0, s.length - digits)
    if (whole.length > 15) return "too-large"
    return digits === 0 ? whole : `${whole}.${s.slice(s.length - digits)}`
  }
}

const digits = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789"), minLength, maxLength })
/** Every amount the contract can write, short and long ones alike. */
const amount = fc.tuple(
  fc.oneof(fc.constant("0"), fc.tuple(fc.constantFrom(..."123456789"), digits(0, 14)).map(([a, b]) => a + b)),
  fc.option(digits(1, 4))
).map(([whole, fraction]) => fraction === null ? whole : `${whole}.${fraction}`)
/** The same value written with more fraction digits, or one ten-thousandth away: the comparisons' edges. */
const near = (a: string) =>
  fc.constantFrom(
    a,
    a.includes(".") ? `${a}0`.slice(0, a.indexOf(".") + 5) : `${a}.00`,
    oracle.units(a) === 0n ? "0.0001" : Money.format(BigDecimal.make(oracle.units(a) - 1n, 4)),
    Money.format(BigDecimal.make(oracle.units(a) + 1n, 4))
  ).filter((b) => Schema.is(Money.Amount)(b))
const pair = fc.oneof(fc.tuple(amount, amount), amount.chain((a) => fc.tuple(fc.constant(a), near(a))))
const currency = fc.constantFrom(...Money.currencyCodes)
/** Decimal text as a person may write it: more digits than an amount has, leading zeros. */
const decimalText = fc.tuple(digits(1, 18), fc.option(digits(1, 6)))
  .map(([whole, fraction]) => fraction === null ? whole : `${whole}.${fraction}`)

const eur = (amount: string): Money.Money => ({ amount, currency: "EUR" })
const value = (text: string) => Option.getOrThrow(Money.parse(text))

describe("Money", () => {
  it("reads only plain decimals, keeping the digits as written", () => {
    assert.deepStrictEqual(
      ["180.00", "0", "007.5"].map((text) => [value(text).value, value(text).scale]),
      [[18000n, 2], [0n, 0], [75n, 1]]
    )
    for (const text of ["", "-1", "+1", "1e3", "1,5", ".5", "5.", "1.2.3", " 1", "Infinity", "0x10"]) {
      assert.isTrue(Option.isNone(Money.parse(text)), text)
    }
  })

  it("writes a value with the fraction digits asked for, the finer ones dropped", () => {
    assert.deepStrictEqual(
      [
        Money.format(value("180"), 2),
        Money.format(value("0.05"), 2),
        Money.format(value("12.3456"), 2),
        Money.format(value("40000"), 0),
        Money.format(value("0.5")),
        Money.format(Money.fromMinorUnits(2000, 2))
      ],
      ["180.00", "0.05", "12.34", "40000", "0.5", "20.00"]
    )
  })

  it("knows each currency's minor units", () => {
    assert.deepStrictEqual(["EUR", "JPY", "KWD", "CLF"].map(Money.minorUnits), [2, 0, 3, 4])
  })

  it("compares amounts of one currency, whatever their fraction digits, and never across currencies", () => {
    assert.isTrue(Money.equals(eur("1.5"), eur("1.5000")))
    assert.isTrue(Money.atMost(eur("99.99"), eur("100")))
    assert.isFalse(Money.atMost(eur("100.0001"), eur("100")))
    assert.strictEqual(Money.compare(eur("1"), { amount: "1", currency: "USD" }), undefined)
    assert.isFalse(Money.atMost(eur("1"), { amount: "2", currency: "USD" }))
    assert.isFalse(Money.equals(eur("1"), { amount: "1", currency: "USD" }))
    assert.isTrue(Money.isZero(eur("0.0000")))
    assert.isFalse(Money.isZero(eur("0.0001")))
  })

  it("divides and rounds down exactly", () => {
    assert.strictEqual(Money.format(Money.divideDown(value("1.00"), 3, 2)), "0.33")
    assert.strictEqual(Money.format(Money.divideDown(value("0.99"), 100, 2)), "0.00")
    assert.strictEqual(Money.format(Money.roundDown(value("10.0099"), 2)), "10.00")
    assert.strictEqual(Money.format(Money.plus(value("0.99"), value("0.01")), 2), "1.00")
  })

  it("builds the contract's amount: the currency's minor units, never rounded, within 15 and 4 digits", () => {
    assert.deepStrictEqual(
      [
        Money.amountOf(value("1500"), "USD"),
        Money.amountOf(value("40000"), "JPY", 3),
        Money.amountOf(value("12.5"), "EUR", 4),
        Money.amountOf(value("1.5"), "KWD"),
        Money.amountOf(value("0.125"), "EUR", 2),
        Money.amountOf(value("1.23456"), "USD"),
        // Too precise as read, though the product would not be.
        Money.amountOf(value("0.00005"), "USD", 2),
        Money.amountOf(value("999999999999999.99"), "USD"),
        Money.amountOf(value("500000000000000"), "USD", 2),
        Money.amountOf(value("0.50"), "EUR", 0)
      ],
      [
        "1500.00",
        "120000",
        "50.00",
        "1.500",
        "0.250",
        "too-precise",
        "too-precise",
        "999999999999999.99",
        "too-large",
        "0.00"
      ]
    )
  })

  describe("properties", () => {
    it("writes back every amount exactly as it read it", () => {
      fc.assert(
        fc.property(amount, (a) => {
          assert.strictEqual(Money.format(value(a)), a)
        }),
        { numRuns: 2000 }
      )
    })

    it("compares as the ten-thousandths it replaced did", () => {
      fc.assert(
        fc.property(pair, fc.boolean(), ([a, b], sameCurrency) => {
          const x = eur(a)
          const y: Money.Money = { amount: b, currency: sameCurrency ? "EUR" : "USD" }
          const [ua, ub] = [oracle.units(a), oracle.units(b)]
          assert.strictEqual(Money.atMost(x, y), sameCurrency && ua <= ub, `${a} ${b}`)
          assert.strictEqual(Money.equals(x, y), sameCurrency && ua === ub, `${a} ${b}`)
          assert.strictEqual(Money.compare(x, y), sameCurrency ? (ua < ub ? -1 : ua > ub ? 1 : 0) : undefined)
          assert.strictEqual(Money.isZero(x), ua === 0n)
        }),
        { numRuns: 5000 }
      )
    })

    it("builds amounts as the minor-unit arithmetic it replaced did", () => {
      fc.assert(
        fc.property(decimalText, currency, fc.integer({ min: 0, max: 1_000_000 }), (text, code, count) => {
          const built = Money.amountOf(value(text), code, count)
          assert.strictEqual(built, oracle.formatAmount(text, code, count), `${text} ${code} × ${count}`)
          if (built !== "too-large" && built !== "too-precise") assert.isTrue(Schema.is(Money.Amount)(built), built)
        }),
        { numRuns: 5000 }
      )
    })

    it("divides down to the largest multiple of the unit that the count times does not exceed", () => {
      fc.assert(
        fc.property(amount, fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 4 }), (a, n, d) => {
          const share = Money.divideDown(value(a), n, d)
          const unit = Money.fromMinorUnits(1, d)
          assert.isTrue(BigDecimal.isLessThanOrEqualTo(Money.times(share, n), value(a)))
          assert.isTrue(BigDecimal.isGreaterThan(Money.times(Money.plus(share, unit), n), value(a)))
        }),
        { numRuns: 2000 }
      )
    })
  })
})
