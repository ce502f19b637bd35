import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import type { Check } from "./Check.ts"
import { check, expectError, expectHeader, expectThat } from "./Check.ts"
import { send } from "./Http.ts"
import type { JobApi } from "./JobApi.ts"

/**
 * What the Job API refuses before it looks for a Job, in the order of docs/API.md, "Which error wins":
 * no valid key, no Idempotency-Key, a body that is not JSON, a document that is not valid. `document`
 * is a valid creation document, which each check spoils in one way.
 */
export const refusalChecks = (api: JobApi, document: { readonly request: string }): ReadonlyArray<Check> => {
  const wrongKey = `rc_live_${randomBytes(32).toString("base64url")}`
  return [
    check(
      "jobs 401: no key is unauthorized, with WWW-Authenticate: Bearer",
      Effect.gen(function*() {
        const answer = yield* send(api.baseUrl, { path: "/v1/jobs" })
        yield* expectError(answer, 401, "unauthorized")
        yield* expectHeader(answer, "www-authenticate", "Bearer")
      })
    ),
    check(
      "jobs 401: an unknown key is unauthorized, before the Idempotency-Key and the body",
      Effect.gen(function*() {
        const answer = yield* send(api.baseUrl, {
          method: "POST",
          path: "/v1/jobs",
          headers: { authorization: `Bearer ${wrongKey}`, "content-type": "application/json" },
          body: "{"
        })
        yield* expectError(answer, 401, "unauthorized")
        yield* expectHeader(answer, "www-authenticate", "Bearer")
      })
    ),
    check(
      "jobs 400 idempotency_key_required: a POST without Idempotency-Key",
      Effect.flatMap(
        api.post("/v1/jobs", document, { idempotencyKey: null }),
        (answer) => expectError(answer, 400, "idempotency_key_required")
      )
    ),
    check(
      "jobs 400 idempotency_key_required: wins over a body that is not JSON",
      Effect.flatMap(
        api.post("/v1/jobs", "{", { idempotencyKey: null }),
        (answer) => expectError(answer, 400, "idempotency_key_required")
      )
    ),
    check(
      "jobs 400 invalid_json: a body that is not JSON",
      Effect.flatMap(api.post("/v1/jobs", `{"request":`), (answer) => expectError(answer, 400, "invalid_json"))
    ),
    check(
      "jobs 400 invalid_json: Content-Type text/plain",
      Effect.flatMap(
        api.post("/v1/jobs", document, { headers: { "content-type": "text/plain" } }),
        (answer) => expectError(answer, 400, "invalid_json")
      )
    ),
    check(
      "jobs 422 invalid_request: a currency that is not ISO 4217, named in the message",
      Effect.gen(function*() {
        const constraints = [{ type: "budget", max: { amount: "10.00", currency: "EURO" } }]
        const answer = yield* api.post("/v1/jobs", { request: document.request, constraints })
        const message = yield* expectError(answer, 422, "invalid_request")
        yield* expectThat(message.includes("constraints[0]"), "a message naming constraints[0]", message)
      })
    ),
    check(
      "jobs 422 invalid_request: a budget without its max, named in the message",
      Effect.gen(function*() {
        const answer = yield* api.post("/v1/jobs", { request: document.request, constraints: [{ type: "budget" }] })
        const message = yield* expectError(answer, 422, "invalid_request")
        yield* expectThat(message.includes("constraints[0].max"), "a message naming constraints[0].max", message)
      })
    ),
    check(
      "jobs 422 invalid_request: a constraint of no known type, or not an object, named in the message",
      Effect.gen(function*() {
        for (const [constraint, place] of [[{ type: "colour" }, "constraints[0].type"], ["x", "constraints[0]"]]) {
          const answer = yield* api.post("/v1/jobs", { request: document.request, constraints: [constraint] })
          const message = yield* expectError(answer, 422, "invalid_request")
          yield* expectThat(message.includes(place as string), `a message naming ${place}`, message)
        }
      })
    )
  ]
}
