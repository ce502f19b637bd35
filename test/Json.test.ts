import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { canonicalJson } from "../src/services/text/CanonicalJson.ts"

/** The one canonical JSON (RFC 8785) that proposal hashes, constraint names and fingerprints are taken of. */

const reversed = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reversed)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.entries(value).reverse().map(([key, item]) => [key, reversed(item)]))
    : value

describe("canonicalJson", () => {
  it("writes members sorted by their UTF-16 code units, and numbers and text as RFC 8785 says", () => {
    assert.strictEqual(
      canonicalJson({
        b: [1.0, "€", 1e30, -0, "\u000f"],
        a: { "\u00e9": true, z: null, "\ud83d\ude00": 1, "\u20ac": 2 }
      }),
      `{"a":{"z":null,"é":true,"€":2,"😀":1},"b":[1,"€",1e+30,0,"\\u000f"]}`
    )
  })

  it("gives equal values equal text, whatever the order of their members, and reads back as the value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value)
        assert.strictEqual(canonicalJson(reversed(value)), text)
        assert.deepStrictEqual(JSON.parse(text), JSON.parse(JSON.stringify(value)))
      }),
      { numRuns: 500 }
    )
  })
})
