import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { FetchHttpClient } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api } from "../src/http/Api.ts"
import { Unavailable } from "../src/schema/Errors.ts"
import { Email } from "../src/schema/Waitlist.ts"
import { layerMemory } from "../src/services/waitlist/MemoryWaitlist.ts"
import { Waitlist } from "../src/services/waitlist/Waitlist.ts"
import { baseUrl, serverWith } from "./support/Http.ts"
import { makeTestLayer } from "./support/makeTestLayer.ts"

const client = Effect.flatMap(baseUrl, (url) => HttpApiClient.make(Api, { baseUrl: url }))
const email = Schema.decodeUnknownSync(Email)

/** The typed client derived from the same HttpApi definition decodes every answer the server sends. */
layer(serverWith(layerMemory).pipe(Layer.provideMerge(FetchHttpClient.layer)), { excludeTestServices: true })(
  "the typed client",
  (it) => {
    it.effect("joins, and refuses to send an address the contract refuses", () =>
      Effect.gen(function*() {
        const api = yield* client
        const joined = yield* api.Waitlist.joinWaitlist({
          payload: { email: email("typed@example.com"), source: "landing" }
        })
        assert.deepStrictEqual(joined, { status: "joined" })
        // The client encodes with the contract's own schema: an invalid address is refused before sending.
        const refused = yield* api.Waitlist.joinWaitlist({
          payload: { email: "not-an-address" as Email, source: "landing" }
        }).pipe(Effect.flip)
        assert.isTrue(Schema.isSchemaError(refused), String(refused))
      }))
  }
)

layer(
  serverWith(makeTestLayer(Waitlist)({ join: () => Effect.fail(new Unavailable({ retryAfter: 9 })) })).pipe(
    Layer.provideMerge(FetchHttpClient.layer)
  ),
  { excludeTestServices: true }
)("the typed client while the store is unavailable", (it) => {
  it.effect("decodes 503 into Unavailable with the Retry-After delay", () =>
    Effect.gen(function*() {
      const api = yield* client
      const failure = yield* api.Waitlist.joinWaitlist({
        payload: { email: email("later@example.com"), source: "landing" }
      })
        .pipe(Effect.flip)
      assert.instanceOf(failure, Unavailable)
      assert.strictEqual((failure as Unavailable).retryAfter, 9)
    }))
})
