import * as BigDecimal from "effect/BigDecimal"
import * as Option from "effect/Option"
import type * as Ordering from "effect/Ordering"
import * as Schema from "effect/Schema"

/**
 * Money as the contract writes it (`{amount, currency}`, the amount a decimal string) and the only
 * arithmetic done on it, exactly, on `BigDecimal`: amounts are read, compared, multiplied and written
 * back here and nowhere else, never as floats.
 */

/**
 * ISO 4217 codes of money one can spend (list one as published in 2025), fixed here rather than read
 * from `Intl.supportedValuesOf("currency")`, whose answer changes with the ICU build. Left out: precious
 * metals, bond-market units, the testing code `XTS` and "no currency" `XXX`, none of which is a budget;
 * and codes already withdrawn (`HRK`, `ANG`, `SLL`, `ZWL`, ...).
 */
export const currencyCodes: ReadonlySet<string> = new Set(
  ("AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF " +
    "CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP " +
    "GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT " +
    "LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR " +
    "NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN " +
    "SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF " +
    "XCD XCG XDR XOF XPF XSU XUA YER ZAR ZMW ZWG").split(" ")
)

/** The most integer and fraction digits an `Amount` has. */
const maxIntegerDigits = 15
const maxFractionDigits = 4

/**
 * A non-negative decimal amount as a string, never a float: no sign, no exponent, no leading zeros, at
 * most 15 integer digits (every such amount is exact in a double, should a consumer need one) and at
 * most 4 fraction digits (the finest minor unit in ISO 4217).
 */
export const Amount = Schema.String.check(
  Schema.isPattern(
    new RegExp(`^(?:0|[1-9][0-9]{0,${maxIntegerDigits - 1}})(?:\\.[0-9]{1,${maxFractionDigits}})?$`, "u"),
    {
      expected:
        `a non-negative decimal amount such as "180.00" (at most ${maxIntegerDigits} integer and ${maxFractionDigits} fraction digits)`
    }
  )
).annotate({ identifier: "Amount" })

export const Currency = Schema.String.check(
  Schema.makeFilter((s: string) => currencyCodes.has(s), {
    expected: "an ISO 4217 currency code such as \"EUR\"",
    toJsonSchema: () => ({ enum: [...currencyCodes] })
  })
).annotate({ identifier: "Currency" })

export const Money = Schema.Struct({ amount: Amount, currency: Currency }).annotate({ identifier: "Money" })
export type Money = typeof Money.Type

const plainDecimal = /^[0-9]+(?:\.[0-9]+)?$/

/**
 * The value a decimal text names: digits with an optional fraction, as an amount is written (leading
 * zeros and any number of digits allowed, so that what is too large or too precise can be told apart);
 * none for anything else (a sign, an exponent, a comma). Keeps the scale as written: "1.50" has two
 * fraction digits.
 */
export const parse = (text: string): Option.Option<BigDecimal.BigDecimal> =>
  plainDecimal.test(text) ? BigDecimal.fromString(text) : Option.none()

/** The value of money whose amount the schema checked (anything else is a defect). */
export const valueOf = (money: Money): BigDecimal.BigDecimal =>
  Option.getOrThrowWith(parse(money.amount), () => new Error(`Not an amount: ${JSON.stringify(money.amount)}`))

/** The value of a whole number of minor units of `digits` fraction digits: 2000 hundredths are 20.00. */
export const fromMinorUnits = (units: number | bigint, digits: number): BigDecimal.BigDecimal =>
  BigDecimal.make(BigInt(units), digits)

export const isZero = (money: Money): boolean => BigDecimal.isZero(valueOf(money))

/** How `a` compares with `b`; undefined when they are in different currencies, which do not compare. */
export const compare = (a: Money, b: Money): Ordering.Ordering | undefined =>
  a.currency === b.currency ? BigDecimal.Order(valueOf(a), valueOf(b)) : undefined

/** `a` is at most `b`, in the same currency. */
export const atMost = (a: Money, b: Money): boolean => {
  const order = compare(a, b)
  return order !== undefined && order <= 0
}

/** The same amount of the same currency, however many fraction digits each is written with. */
export const equals = (a: Money, b: Money): boolean => compare(a, b) === 0

export const plus = (a: BigDecimal.BigDecimal, b: BigDecimal.BigDecimal): BigDecimal.BigDecimal => BigDecimal.sum(a, b)

export const times = (value: BigDecimal.BigDecimal, count: number | bigint): BigDecimal.BigDecimal =>
  BigDecimal.multiply(value, BigDecimal.fromBigInt(BigInt(count)))

/** `value` to `digits` fraction digits, the finer ones dropped (rounded down: money is never negative). */
export const roundDown = (value: BigDecimal.BigDecimal, digits: number): BigDecimal.BigDecimal =>
  BigDecimal.scale(value, digits)

/**
 * `value` divided by a count, rounded down to `digits` fraction digits, exactly: the floor of the
 * floor is the floor, so dividing the value already rounded down to `digits` is the same.
 */
export const divideDown = (
  value: BigDecimal.BigDecimal,
  count: number | bigint,
  digits: number
): BigDecimal.BigDecimal => BigDecimal.make(roundDown(value, digits).value / BigInt(count), digits)

const knownMinorUnits = new Map<string, number>()
/**
 * The fraction digits a currency's amounts are written with (2 for EUR, 0 for JPY, 3 for KWD), as the
 * runtime's ICU data has them.
 */
export const minorUnits = (currency: string): number => {
  const known = knownMinorUnits.get(currency)
  if (known !== undefined) return known
  const { maximumFractionDigits = 2 } = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions()
  knownMinorUnits.set(currency, maximumFractionDigits)
  return maximumFractionDigits
}

/**
 * `value` written with exactly `digits` fraction digits (none: no decimal point), the finer ones dropped
 * (`roundDown`); written with those it has when `digits` is not given. No sign: money is never negative.
 */
export const format = (value: BigDecimal.BigDecimal, digits = Math.max(0, value.scale)): string => {
  const text = roundDown(value, digits).value.toString().padStart(digits + 1, "0")
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`
}

/**
 * The contract's amount for `count` times `value` in `currency`: with the currency's minor units, or with
 * all of `value`'s own fraction digits when it has more (an amount is never rounded); or why the
 * contract cannot write it (more than `maxFractionDigits` or `maxIntegerDigits`).
 */
export const amountOf = (
  value: BigDecimal.BigDecimal,
  currency: string,
  count = 1
): string | "too-large" | "too-precise" => {
  const digits = Math.max(minorUnits(currency), BigDecimal.normalize(value).scale)
  if (digits > maxFractionDigits) return "too-precise"
  const amount = format(times(value, count), digits)
  return amount.split(".")[0]!.length > maxIntegerDigits ? "too-large" : amount
}
