import { assert, describe, it } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Effect } from "effect"
import { readFileSync } from "node:fs"

/**
 * Both published documents (the snapshots the OpenAPI tests keep equal to what `/openapi.json` serves,
 * with the preview off and on) validated against the OpenAPI 3.1 specification's own schema, strictly
 * (`@seriousme/openapi-schema-validator`: the official schemas, on Ajv).
 */

const read = (name: string) => JSON.parse(readFileSync(new URL(`./__snapshots__/${name}`, import.meta.url), "utf8"))

describe("the published OpenAPI documents", () => {
  for (const name of ["openapi.json", "openapi-preview.json"]) {
    it.effect(`${name} is a valid OpenAPI 3.1 document`, () =>
      Effect.gen(function*() {
        const document = read(name)
        assert.strictEqual(document.openapi, "3.1.0")
        const validator = new Validator()
        const result = yield* Effect.promise(() => validator.validate(document))
        assert.isTrue(result.valid, JSON.stringify(result.errors, null, 2))
        // Every reference names a schema the document holds.
        const references = [...JSON.stringify(document).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)]
        assert.isNotEmpty(references)
        for (const [, target] of references) {
          assert.property(document.components.schemas, target!, `a reference to ${target}`)
        }
      }))
  }

  it.effect("a document that breaks the specification is refused (the check can fail)", () =>
    Effect.gen(function*() {
      const broken = read("openapi-preview.json")
      broken.paths["/v1/jobs"].get.responses = { "200": { content: {} } }
      const result = yield* Effect.promise(() => new Validator().validate(broken))
      assert.isFalse(result.valid)
    }))
})
