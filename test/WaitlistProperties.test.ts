import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import { codePointLength, emailMaxLength } from "../src/schema/Waitlist.ts"
import { layerMemory } from "../src/services/waitlist/MemoryWaitlist.ts"
import { baseUrl, join, serverWith } from "./support/Http.ts"

const whitespace = /\s/u

/** Any code point (astral included, lone surrogates excluded) that may stand in a label. */
const labelChar = fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((c) =>
  c !== "@" && c !== "." && !whitespace.test(c)
)
const localChar = fc.oneof(labelChar, fc.constant("."))
const text = (char: fc.Arbitrary<string>, max: number) =>
  fc.array(char, { minLength: 1, maxLength: max }).map((chars) => chars.join(""))

/** Addresses that satisfy every rule of rule 2 of docs/API.md, "The rules, in the order they are checked". */
const validAddress = fc.tuple(text(localChar, 40), fc.array(text(labelChar, 20), { minLength: 2, maxLength: 5 }))
  .map(([local, labels]) => `${local}@${labels.join(".")}`)
  .filter((address) => codePointLength(address) <= emailMaxLength)

const insertAt = (address: string, position: number, inserted: string) => {
  const points = [...address]
  const at = position % (points.length + 1)
  return [...points.slice(0, at), inserted, ...points.slice(at)].join("")
}

/** Valid addresses with room for one more code point, so that inserting one breaks no length rule. */
const roomyAddress = validAddress.filter((address) => codePointLength(address) < emailMaxLength)

/** Each breaks exactly one rule of a valid address and keeps the others. */
const breakOne: ReadonlyArray<[string, fc.Arbitrary<string>]> = [
  [
    "too long",
    fc.tuple(validAddress, fc.integer({ min: 1, max: 40 })).map(([address, extra]) => {
      const [local, domain] = [address.slice(0, address.indexOf("@")), address.slice(address.indexOf("@"))]
      return "x".repeat(emailMaxLength + extra - codePointLength(domain) - codePointLength(local)) + local + domain
    })
  ],
  [
    "whitespace",
    fc.tuple(
      roomyAddress,
      fc.nat(),
      fc.constantFrom(" ", "\t", "\n", "\r", "\u00a0", "\u2028", "\u3000", "\ufeff", "\u000b")
    ).map(([address, at, space]) => insertAt(address, at, space))
  ],
  ["no @", validAddress.map((address) => address.replace("@", ""))],
  ["a second @", fc.tuple(roomyAddress, fc.nat()).map(([address, at]) => insertAt(address, at, "@"))],
  ["an empty domain label", roomyAddress.map((address) => address.replace(/\.([^.]*)$/u, "..$1"))],
  ["a domain ending in a dot", roomyAddress.map((address) => `${address}.`)],
  ["a domain starting with a dot", roomyAddress.map((address) => address.replace("@", "@."))],
  [
    "a single-label domain",
    validAddress.map((address) => address.slice(0, address.indexOf(".", address.indexOf("@"))))
  ],
  [
    "an unpaired surrogate",
    fc.tuple(roomyAddress, fc.nat(), fc.integer({ min: 0xd800, max: 0xdfff })).map(([address, at, unit]) =>
      insertAt(address, at, String.fromCharCode(unit))
    )
  ]
]

/** Every address `addresses` generates is answered with exactly `status` and `body`. */
const everyAnswer = (addresses: fc.Arbitrary<string>, status: number, body: string) =>
  Effect.gen(function*() {
    const url = yield* baseUrl
    yield* Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(addresses, async (address) => {
          const answer = await Effect.runPromise(join(url, address))
          assert.strictEqual(answer.status, status, JSON.stringify(address))
          assert.strictEqual(answer.body, body)
        }),
        { numRuns: 150 }
      )
    )
  })

layer(serverWith(layerMemory), { excludeTestServices: true })("waitlist properties", (it) => {
  it.effect("every address satisfying every rule is answered 200", () =>
    everyAnswer(validAddress, 200, `{"status":"joined"}`))

  for (const [rule, arbitrary] of breakOne) {
    it.effect(`an address with ${rule} (and no other fault) is answered 422`, () =>
      everyAnswer(arbitrary, 422, `{"error":"invalid_email"}`))
  }
})
