import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { layerMemory } from "../src/services/waitlist/MemoryWaitlist.ts"
import { baseUrl, send, serverWith } from "./support/Http.ts"

layer(serverWith(layerMemory), { excludeTestServices: true })("the published contract", (it) => {
  it.effect("GET /openapi.json describes POST /v1/waitlist exactly, and cannot drift unnoticed", () =>
    Effect.gen(function*() {
      const response = yield* send(yield* baseUrl, { method: "GET", path: "/openapi.json" })
      assert.strictEqual(response.status, 200)
      const document = JSON.parse(response.body)
      assert.strictEqual(document.openapi, "3.1.0")
      assert.strictEqual(document.info.version, "1.0.0")
      const operation = document.paths["/v1/waitlist"].post
      assert.deepStrictEqual(Object.keys(document.paths), ["/v1/waitlist"])
      assert.strictEqual(operation.operationId, "joinWaitlist")
      assert.deepStrictEqual(Object.keys(operation.responses).sort(), ["200", "400", "422", "503"])
      assert.deepStrictEqual(operation.responses["503"].headers["retry-after"].required, true)
      const { schemas } = document.components
      assert.deepStrictEqual(schemas.JoinRequest, {
        type: "object",
        properties: {
          email: { type: "string", minLength: 3, maxLength: 254, pattern: "^[^@\\s]+@[^@\\s.]+(\\.[^@\\s.]+)+$" },
          source: { type: "string", enum: ["landing"] }
        },
        required: ["email", "source"],
        additionalProperties: false
      })
      for (
        const [name, field, value] of [
          ["Joined", "status", "joined"],
          ["InvalidJson", "error", "invalid_json"],
          ["InvalidEmail", "error", "invalid_email"],
          ["Unavailable", "error", "unavailable"]
        ] as const
      ) {
        assert.deepStrictEqual(schemas[name].properties, { [field]: { type: "string", enum: [value] } })
        assert.deepStrictEqual(schemas[name].required, [field])
        assert.strictEqual(schemas[name].additionalProperties, false)
      }
      assert.notMatch(response.body, /HttpApiDecodeError|HttpApiSchemaError|_tag/)
      yield* Effect.promise(() =>
        expect(JSON.stringify(document, null, 2) + "\n").toMatchFileSnapshot("./__snapshots__/openapi.json")
      )
    }))

  it.effect("GET /docs serves the reference page from installed packages, with no external asset", () =>
    Effect.gen(function*() {
      const response = yield* send(yield* baseUrl, { method: "GET", path: "/docs" })
      assert.strictEqual(response.status, 200)
      assert.match(String(response.headers["content-type"]), /^text\/html/)
      assert.notMatch(response.body, /<script[^>]+src=["']https?:|<link[^>]+href=["']https?:/)
      assert.include(response.body, "/v1/waitlist")
      // Scalar would otherwise load its fonts from its own CDN.
      assert.include(response.body, `"withDefaultFonts":false`)
    }))
})
