import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"

/** Decimal digits, no sign, exponent, space or leading zero: the shape of every whole number in a query or header. */
export const digits = /^(0|[1-9][0-9]{0,15})$/

/**
 * A whole number as a query parameter or header carries it: decimal digits only (no sign, exponent,
 * space or leading zero), from `minimum` to `maximum`.
 */
export const WholeNumberText = (minimum: number, maximum = Number.MAX_SAFE_INTEGER) => {
  const expected = maximum === Number.MAX_SAFE_INTEGER
    ? `a whole number from ${minimum}`
    : `a whole number from ${minimum} to ${maximum}`
  return Schema.String.check(
    Schema.makeFilter((text) => {
      if (!digits.test(text)) return `must be ${expected}`
      const n = Number(text)
      return (n >= minimum && n <= maximum) || `must be ${expected}`
    })
  ).pipe(Schema.decodeTo(Schema.Int, SchemaTransformation.numberFromString))
}

/** An event position (`after`, `at`, `Last-Event-ID`): a whole number from 0. */
export const PositionText = WholeNumberText(0)
