import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import { readJoinDocument } from "../bench/JoinDocument.ts"
import { InvalidEmail } from "../src/schema/Errors.ts"
import { decodeJoinDocument } from "../src/schema/Waitlist.ts"

// The bench's hand-written servers (bench/baseline.ts) read a join body without our decoder; they are a
// fair baseline only if they answer every body as the service does.

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit))

/** Strings around every rule of the address: lengths at the bounds (astral characters count once), whitespace, surrogates. */
const addressLike = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 256 }), fc.constantFrom("x", "é", "😀", "\u0000")).map(([n, c]) =>
    `${c.repeat(n)}@b.co`.slice(0, 3 + n)
  ),
  fc.tuple(fc.integer({ min: 240, max: 252 }), fc.constantFrom("x", "😀", "A")).map(([n, c]) => `${c.repeat(n)}@b.co`),
  fc.tuple(
    fc.array(fc.constantFrom("a", "B", "@", ".", " ", "\u00a0", "\ufeff", "😀", "\n", "İ"), { maxLength: 12 }),
    fc.option(loneSurrogate, { nil: "" })
  ).map(([chars, surrogate]) => chars.join("") + surrogate),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.tuple(
    fc.string({ unit: "binary", minLength: 1, maxLength: 8 }),
    fc.array(fc.string({ unit: "binary", minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 3 })
  ).map(([local, labels]) => `${local}@${labels.join(".")}`),
  fc.constantFrom("a@b.c", "a@b", "ab", "a@b.", "a@.b", "a b@c.d", "Ann@Example.com", "a@b.c\ud800", "\ud83d@b.c")
)

const jsonValue = fc.oneof(
  addressLike,
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.constant({})
)

const member = fc.oneof(
  { weight: 4, arbitrary: addressLike.map((value) => ["email", value] as const) },
  { weight: 1, arbitrary: jsonValue.map((value) => ["email", value] as const) },
  { weight: 4, arbitrary: fc.constant(["source", "landing"] as const) },
  {
    weight: 1,
    arbitrary: fc.constantFrom("Landing", "landing ", "", 1, null).map((value) => ["source", value] as const)
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom("name", "__proto__", "constructor", "Email", "toString"), jsonValue)
  }
)

/** JSON text of an object member by member, so that a member may repeat. */
const objectText = fc.oneof(
  fc.array(member, { maxLength: 4 }),
  fc.tuple(addressLike, fc.boolean()).map(([email, sourceFirst]) =>
    sourceFirst
      ? [["source", "landing"] as const, ["email", email] as const]
      : [["email", email] as const, ["source", "landing"] as const]
  )
).map((members) => `{${members.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`).join(",")}}`)

const utf8 = new TextEncoder()
const concat = (...parts: ReadonlyArray<Uint8Array>) => Buffer.concat(parts)

/** The bytes of a body: a join document or some other JSON text, sometimes broken on the way. */
const body = fc.tuple(
  fc.oneof({ weight: 6, arbitrary: objectText }, {
    weight: 1,
    arbitrary: jsonValue.map((value) => JSON.stringify(value))
  }),
  fc.constantFrom(
    "none",
    "none",
    "none",
    "none",
    "bom",
    "trailing",
    "truncated",
    "invalid byte",
    "encoded surrogate",
    "spaces"
  )
).map(([text, damage]) => {
  const bytes = utf8.encode(text)
  switch (damage) {
    case "none":
      return bytes
    case "bom":
      return concat(Uint8Array.of(0xef, 0xbb, 0xbf), bytes)
    case "trailing":
      return concat(bytes, utf8.encode("x"))
    case "truncated":
      return bytes.subarray(0, bytes.length - 1)
    case "invalid byte":
      return concat(bytes.subarray(0, 2), Uint8Array.of(0xff), bytes.subarray(2))
    case "encoded surrogate":
      return utf8.encode(text.replace("@", "@\\ud800"))
    default:
      return utf8.encode(` \n${text}\t `)
  }
})

const serviceAnswer = (bytes: Uint8Array) => {
  const decoded = decodeJoinDocument(bytes)
  if (Result.isSuccess(decoded)) return decoded.success as string
  return decoded.failure instanceof InvalidEmail ? 422 : 400
}

describe("the bench's hand-written reading of a join body", () => {
  it("answers every body as the service's decoder does", () => {
    fc.assert(
      fc.property(body, (bytes) => {
        assert.strictEqual(readJoinDocument(bytes), serviceAnswer(bytes), Buffer.from(bytes).toString("latin1"))
      }),
      { numRuns: 3000 }
    )
  })

  it("the generated bodies reach every answer", () => {
    const answers = fc.sample(body, { numRuns: 2000, seed: 15 }).map(serviceAnswer)
    assert.isAbove(answers.filter((answer) => answer === 400).length, 100)
    assert.isAbove(answers.filter((answer) => answer === 422).length, 100)
    assert.isAbove(answers.filter((answer) => typeof answer === "string").length, 100)
  })
})
