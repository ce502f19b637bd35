import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "node:http"
import { baseUrl } from "./support/Http.ts"
import { newKey, previewServerWith, servicesTest } from "./support/JobsHttp.ts"

/**
 * A client that closes its event stream: the platform ends the response with a cause it hashes, which
 * once walked the stream into Node's response and printed DEP0066 (`OutgoingMessage.prototype._headers`)
 * at every closed stream, in the service's and the demo's output.
 */
layer(previewServerWith(servicesTest()), { excludeTestServices: true })("a closed event stream", (it) => {
  it.effect("prints no deprecation warning", () =>
    Effect.scoped(Effect.gen(function*() {
      const warnings: Array<string> = []
      const listener = (warning: Error & { readonly code?: string }) =>
        warnings.push(`${warning.code} ${warning.message}`)
      process.on("warning", listener)
      yield* Effect.addFinalizer(() => Effect.sync(() => process.off("warning", listener)))
      const url = yield* baseUrl
      const key = yield* newKey()
      for (let i = 0; i < 3; i++) {
        // The stream opens (its first bytes arrive), then the client goes away.
        const status = yield* Effect.callback<number | undefined>((resume) => {
          let opened = false
          const req = request(`${url}/v1/events`, {
            headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" },
            agent: false
          }, (res) => {
            res.once("data", () => {
              opened = true
              res.once("close", () => resume(Effect.succeed(res.statusCode)))
              req.destroy()
            })
          })
          // Destroying the request is how the client goes away; an error before that is the test's failure.
          req.on("error", (error) => opened || resume(Effect.die(error)))
          req.end()
        })
        assert.strictEqual(status, 200)
      }
      // The server sees each close on its next turn; a warning is emitted on the turn after.
      yield* Effect.sleep("200 millis")
      assert.deepStrictEqual(warnings, [])
    })))
})
