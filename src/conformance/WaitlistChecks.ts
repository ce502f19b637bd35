import * as Effect from "effect/Effect"
import type { Check } from "./Check.ts"
import { check, expectExact, expectHeader, expectThat, show } from "./Check.ts"
import type { Answer } from "./Http.ts"
import { send } from "./Http.ts"

/**
 * The waitlist's rules (docs/API.md, "The waitlist"), checked from outside. Every address a check sends
 * is a test address of this run, `conformance+<run>-<n>@example.com`, so that an operator can tell
 * them from people's, and none is ever sent twice by two runs.
 */

const joined = `{"status":"joined"}`
const invalidJson = `{"error":"invalid_json"}`
const invalidEmail = `{"error":"invalid_email"}`
const json = { "content-type": "application/json" }

export const waitlistChecks = (baseUrl: string, runId: string): ReadonlyArray<Check> => {
  let counter = 0
  const address = (label = "") => `conformance+${runId}-${++counter}${label}@example.com`
  /** A test address of exactly `length` code points, its local part padded with `fill`. */
  const addressOf = (length: number, fill: string) => {
    const prefix = `conformance+${runId}-${++counter}-`
    const domain = "@example.com"
    return prefix + fill.repeat(length - [...prefix].length - domain.length) + domain
  }

  const post = (body: string | Uint8Array, headers: Record<string, string> = json) =>
    send(baseUrl, { method: "POST", path: "/v1/waitlist", headers, body })
  const postDocument = (document: unknown) => post(JSON.stringify(document))
  const join = (email: string) => postDocument({ email, source: "landing" })

  const answers = (name: string, request: () => ReturnType<typeof post>) => (status: number, body: string) =>
    check(name, Effect.flatMap(Effect.suspend(request), (answer) => expectExact(answer, status, body)))

  const badDocument = (name: string, body: () => string, headers: Record<string, string> = json) =>
    answers(`waitlist 400 invalid_json: ${name}`, () => post(body(), headers))(400, invalidJson)
  const badAddress = (name: string, document: () => unknown) =>
    answers(`waitlist 422 invalid_email: ${name}`, () => postDocument(document()))(422, invalidEmail)
  const goodAddress = (name: string, email: () => string) =>
    answers(`waitlist 200: ${name}`, () => join(email()))(200, joined)

  const sameAnswers = Effect.gen(function*() {
    const email = address("-Case")
    const first = yield* join(email)
    yield* expectExact(first, 200, joined)
    for (const again of [email.toUpperCase(), email.toLowerCase(), email]) {
      const answer = yield* join(again)
      yield* expectThat(answer.status === first.status && answer.body === first.body, show(first), show(answer))
      const { date: _first, ...expected } = first.headers
      const { date: _again, ...got } = answer.headers
      yield* expectThat(
        JSON.stringify(Object.entries(got).sort()) === JSON.stringify(Object.entries(expected).sort()),
        `the headers of the first answer, Date aside: ${JSON.stringify(expected)}`,
        JSON.stringify(got)
      )
    }
  })

  const methodNotAllowed = (method: "GET" | "PUT" | "DELETE") =>
    check(
      `waitlist 405: ${method} is method_not_allowed with Allow: POST, OPTIONS`,
      Effect.gen(function*() {
        const answer = yield* send(baseUrl, { method, path: "/v1/waitlist" })
        yield* expectExact(answer, 405, `{"error":"method_not_allowed"}`)
        yield* expectHeader(answer, "allow", "POST, OPTIONS")
      })
    )

  const corsHeaders = (answer: Answer) =>
    Object.keys(answer.headers).filter((name) => name.startsWith("access-control-"))

  return [
    goodAddress("a new address is joined, as application/json", () => address()),
    check("waitlist 200: a known address, in another case, gets the same status, body and headers", sameAnswers),
    answers(
      "waitlist 200: application/json with parameters, in another case, is JSON",
      () =>
        post(JSON.stringify({ email: address(), source: "landing" }), {
          "content-type": "Application/JSON; charset=utf-8"
        })
    )(200, joined),
    badDocument("no Content-Type", () => JSON.stringify({ email: address(), source: "landing" }), {}),
    badDocument(
      "Content-Type text/plain",
      () => JSON.stringify({ email: address(), source: "landing" }),
      { "content-type": "text/plain" }
    ),
    badDocument("an empty body", () => ""),
    badDocument("a body that is not JSON", () => `{"email":`),
    badDocument(
      "trailing garbage after the JSON value",
      () => `${JSON.stringify({ email: address(), source: "landing" })} x`
    ),
    badDocument("a JSON array, not an object", () => JSON.stringify([{ email: address(), source: "landing" }])),
    badDocument("a JSON string, not an object", () => JSON.stringify(address())),
    badDocument(
      "a member other than email and source",
      () => JSON.stringify({ email: address(), source: "landing", name: "Ann" })
    ),
    badDocument("source missing", () => JSON.stringify({ email: address() })),
    badDocument("source not exactly landing", () => JSON.stringify({ email: address(), source: "Landing" })),
    badDocument("a bad document wins over a bad address", () => JSON.stringify({ email: "bad", source: "x" })),
    badAddress("email missing", () => ({ source: "landing" })),
    badAddress("email not a string", () => ({ email: 5, source: "landing" })),
    badAddress("shorter than 3 characters", () => ({ email: "a@", source: "landing" })),
    badAddress("longer than 254 characters", () => ({ email: addressOf(255, "a"), source: "landing" })),
    goodAddress("exactly 254 characters is an address", () => addressOf(254, "a")),
    badAddress("no dot in the domain", () => ({ email: `conformance+${runId}@example`, source: "landing" })),
    badAddress(
      "white space in the address",
      () => ({ email: `conformance+${runId} x@example.com`, source: "landing" })
    ),
    badAddress("an empty domain label", () => ({ email: `conformance+${runId}@example..com`, source: "landing" })),
    badAddress("two @", () => ({ email: `conformance+${runId}@@example.com`, source: "landing" })),
    answers(
      "waitlist 422 invalid_email: an unpaired surrogate",
      () => post(`{"email":"conformance+${runId}\\ud83d@example.com","source":"landing"}`)
    )(422, invalidEmail),
    goodAddress("254 code points of emoji count as 254 characters", () => addressOf(254, "😀")),
    badAddress("255 code points of emoji are too long", () => ({ email: addressOf(255, "😀"), source: "landing" })),
    methodNotAllowed("GET"),
    methodNotAllowed("PUT"),
    methodNotAllowed("DELETE"),
    check(
      "waitlist OPTIONS: an origin that is not allowed gets 204 without Access-Control headers",
      Effect.gen(function*() {
        const origin = `https://conformance-${runId}.example`
        const preflight = yield* send(baseUrl, {
          method: "OPTIONS",
          path: "/v1/waitlist",
          headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" }
        })
        yield* expectThat(preflight.status === 204, "204", show(preflight))
        yield* expectThat(
          corsHeaders(preflight).length === 0,
          "no Access-Control-* header",
          corsHeaders(preflight).join(", ")
        )
        const posted = yield* post(JSON.stringify({ email: address(), source: "landing" }), { ...json, origin })
        yield* expectExact(posted, 200, joined)
        yield* expectThat(
          corsHeaders(posted).length === 0,
          "no Access-Control-* header on the POST",
          corsHeaders(posted).join(", ")
        )
      })
    ),
    check(
      "waitlist 404: /v1/waitlist/ is not the operation (empty body)",
      Effect.gen(function*() {
        const body = JSON.stringify({ email: address(), source: "landing" })
        const answer = yield* send(baseUrl, { method: "POST", path: "/v1/waitlist/", headers: json, body })
        yield* expectThat(answer.status === 404 && answer.body === "", "404 with an empty body", show(answer))
      })
    )
  ]
}
