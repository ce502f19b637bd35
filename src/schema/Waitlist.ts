import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { InvalidEmail, InvalidJson } from "./Errors.ts"
import { parseJsonBytes } from "./Json.ts"

/**
 * The contract's e-mail pattern (docs/API.md, "The waitlist"). The `u` flag gives JSON Schema's semantics
 * (and lets the pattern into the OpenAPI document); on well-formed text, the only text accepted, it
 * matches exactly what the flagless expression matches.
 */
export const emailPattern = /^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$/u

export const emailMinLength = 3
export const emailMaxLength = 254

/** Length in Unicode code points, as JSON Schema counts `minLength` and `maxLength`. */
export const codePointLength = (s: string): number => {
  let n = s.length
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}

const isWellFormed = Schema.makeFilter<string>((s) => s.isWellFormed(), {
  expected: "well-formed Unicode text (no unpaired surrogate)"
})

const isCodePointLengthBetween = (min: number, max: number) =>
  Schema.makeFilter<string>(
    (s) => {
      const n = codePointLength(s)
      return n >= min && n <= max
    },
    {
      expected: `between ${min} and ${max} code points`,
      toJsonSchema: () => ({ minLength: min, maxLength: max })
    }
  )

/**
 * A waitlist address exactly as the contract accepts it. It is stored as sent: the membership key is
 * its locale-independent lower case (see `Email.key`).
 */
export const Email = Schema.String.check(
  isWellFormed,
  isCodePointLengthBetween(emailMinLength, emailMaxLength),
  Schema.isPattern(emailPattern)
).pipe(Schema.brand("Email"))
export type Email = typeof Email.Type

/** Membership is case-insensitive: two spellings with the same key are one member. */
export const emailKey = (email: Email): string => email.toLowerCase()

export const Source = Schema.Literal("landing")

/** The request body of `POST /v1/waitlist` (docs/API.md, "The waitlist"). */
export const JoinRequest = Schema.Struct({
  email: Email,
  source: Source
}).annotate({ identifier: "JoinRequest" })
export type JoinRequest = typeof JoinRequest.Type

/**
 * The document's shape, checked before the address: any member other than `email` and `source`, or a
 * `source` other than `landing`, is the client program's fault (docs/API.md, "The rules, in the order they are checked", rule 1).
 */
export const JoinRequestShape = Schema.Struct({
  email: Schema.optionalKey(Schema.Unknown),
  source: Source
})

/** The success body (docs/API.md, "The waitlist"). */
export const Joined = Schema.Struct({
  status: Schema.Literal("joined")
}).annotate({
  identifier: "Joined",
  description: "The address is registered: the same answer whether or not it already was."
})
export type Joined = typeof Joined.Type

export const joined: Joined = { status: "joined" }

// The refusals carry no data, so one instance of each serves every request: building an error captures
// a stack trace, which cost a quarter of the CPU of a 422 answer.
const invalidJson = new InvalidJson()
const invalidEmail = new InvalidEmail()

const decodeShape = Schema.decodeUnknownOption(JoinRequestShape, { onExcessProperty: "error" })
const isEmail = Schema.is(Email)

/**
 * Reads a join document from the bytes of a body, applying the rules of docs/API.md in their order: the
 * bytes must be UTF-8 (a byte-order mark is not stripped, so it fails as JSON), the text one JSON
 * object with no member but `email` and `source`, `source` exactly `landing`; then the address.
 */
export const decodeJoinDocument = (body: Uint8Array): Result.Result<Email, InvalidJson | InvalidEmail> => {
  const document = parseJsonBytes(body)
  if (Result.isFailure(document)) return Result.fail(invalidJson)
  const shape = decodeShape(document.success)
  if (Option.isNone(shape)) return Result.fail(invalidJson)
  const email = shape.value.email
  return isEmail(email) ? Result.succeed(email) : Result.fail(invalidEmail)
}
