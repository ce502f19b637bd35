import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Layer, Option } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { ProposalHash } from "../src/schema/Proposal.ts"
import * as HttpProvider from "../src/services/providers/HttpProvider.ts"
import { Providers } from "../src/services/providers/Provider.ts"

/**
 * The `http` provider against an operator's endpoint started here: every call signed (the endpoint
 * refuses a bad signature), keys sent as `Idempotency-Key`, one side effect per key however often it
 * is sent, and each kind of failure mapped to what the service does with it.
 */

const secret = "s3cret-for-tests"
const money = (amount: string) => ({ amount, currency: "EUR" })
const terms = { cancellable: true, cancellationFee: money("0.00") }

interface Endpoint {
  readonly url: string
  readonly seen: Array<{ readonly path: string; readonly key: string | undefined }>
  readonly effects: Map<string, { state: "succeeded" | "compensated"; reference: string }>
  /** What the next calls do instead of answering: hold the answer until the test lets it go, or a status. */
  mode: { readonly hold?: boolean; readonly status?: number }
  /** The answers held back: each is given (and its side effect done) when called. */
  readonly held: Array<() => void>
  readonly close: () => Promise<void>
}

const verify = (request: IncomingMessage, body: string) => {
  const header = String(request.headers.signature ?? "")
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header)
  if (match === null) return false
  const expected = createHmac("sha256", secret).update(`${match[1]}.${body}`, "utf8").digest()
  const fresh = Math.abs(Date.now() / 1000 - Number(match[1])) < 300
  return fresh && timingSafeEqual(expected, Buffer.from(match[2]!, "hex"))
}

const startEndpoint = () =>
  new Promise<Endpoint>((resolve) => {
    const endpoint = {
      seen: [],
      effects: new Map(),
      mode: {},
      held: []
    } as unknown as Endpoint
    const answer = (response: ServerResponse, status: number, document?: unknown) => {
      response.writeHead(status, { "content-type": "application/json" })
      response.end(document === undefined ? "" : JSON.stringify(document))
    }
    const server = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk) => body += chunk)
      request.on("end", () => {
        if (!verify(request, body)) return answer(response, 401, { error: "bad signature" })
        const key = request.headers["idempotency-key"] as string | undefined
        endpoint.seen.push({ path: request.url!, key })
        const respond = () => {
          if (endpoint.mode.status !== undefined) return answer(response, endpoint.mode.status, { error: "mode" })
          const document = JSON.parse(body)
          switch (request.url) {
            case "/quote":
              return answer(response, 200, {
                offers: [{ offer: { id: "o1", title: "A table", details: {} }, price: money("90.00"), terms }]
              })
            case "/execute": {
              if (!endpoint.effects.has(key!)) {
                endpoint.effects.set(key!, { state: "succeeded", reference: `ref-${endpoint.effects.size + 1}` })
              }
              return answer(response, 200, { reference: endpoint.effects.get(key!)!.reference })
            }
            case "/inspect": {
              const effect = endpoint.effects.get(document.key)
              if (effect === undefined) return answer(response, 404, { error: "unknown key" })
              return answer(response, 200, {
                key: document.key,
                ...effect,
                offerId: "o1",
                spent: money("90.00"),
                terms
              })
            }
            case "/cancel": {
              const effect = endpoint.effects.get(document.key)
              if (effect !== undefined) effect.state = "compensated"
              return answer(response, 204)
            }
          }
          answer(response, 404)
        }
        if (endpoint.mode.hold === true) endpoint.held.push(respond)
        else respond()
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      Object.assign(endpoint, {
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise<void>((done) => server.close(() => done()))
      })
      resolve(endpoint)
    })
  })

/**
 * The provider for `endpoint`. Its timeout is long enough for any answer the endpoint gives at once, on a
 * loaded machine: only an answer the endpoint holds back times out (`impatient` for those).
 */
const providerFor = (endpoint: Endpoint, key = secret, timeout = "30 seconds") =>
  // Fresh: a layer is built once and shared by every later `provide`, and each of these is configured apart.
  Layer.fresh(HttpProvider.layer).pipe(
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({
      PROVIDER_URL: endpoint.url,
      PROVIDER_SECRET: key,
      PROVIDER_TIMEOUT: timeout
    })))
  )

/** `effect` with a provider that waits 300 ms for an answer. */
const impatient = <A, E>(endpoint: Endpoint, effect: Effect.Effect<A, E, Providers>) =>
  Effect.provide(effect, providerFor(endpoint, secret, "300 millis"))

const document = {
  jobId: "job_1",
  jobRevision: 1,
  provider: "http",
  offer: { id: "o1", title: "A table", details: {} },
  spend: money("90.00"),
  terms,
  objective: { kind: "reservation", summary: "A table" },
  constraints: [],
  createdAt: "2026-11-25T00:00:00.000Z",
  expiresAt: "2026-11-25T00:15:00.000Z"
} as never
const hash = `sha256:${"a".repeat(64)}` as ProposalHash

const withEndpoint = <A, E>(test: (endpoint: Endpoint) => Effect.Effect<A, E, Providers>, key = secret) =>
  Effect.acquireUseRelease(
    Effect.promise(startEndpoint),
    (endpoint) => test(endpoint).pipe(Effect.provide(providerFor(endpoint, key))),
    (endpoint) => Effect.promise(() => endpoint.close())
  )

const failureTag = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.isFailure(exit) ? (Option.getOrUndefined(Exit.findErrorOption(exit)) as { _tag?: string })?._tag : "success"

describe("the http provider", () => {
  it.live("quotes, executes once per key however often it is sent, inspects and cancels, every call signed", () =>
    withEndpoint((endpoint) =>
      Effect.gen(function*() {
        const provider = yield* Providers
        assert.strictEqual(provider.name, "http")
        const quotes = yield* provider.quote({
          jobId: "job_1" as never,
          jobRevision: 1,
          objective: { kind: "reservation", summary: "A table" },
          constraints: []
        })
        assert.deepStrictEqual(quotes.map((quote) => [quote.offer.id, quote.price.amount]), [["o1", "90.00"]])
        const key = `job_1:${hash}:1`
        const first = yield* provider.execute({ key, proposalHash: hash, document })
        const again = yield* provider.execute({ key, proposalHash: hash, document })
        assert.deepStrictEqual(first, again)
        assert.strictEqual(endpoint.effects.size, 1)
        assert.deepStrictEqual(
          endpoint.seen.filter((call) => call.path === "/execute").map((call) => call.key),
          [key, key]
        )
        const inspected = yield* provider.inspect(key)
        assert.strictEqual(Option.getOrThrow(inspected).state, "succeeded")
        assert.strictEqual(Option.getOrThrow(inspected).reference, first.reference)
        assert.isTrue(Option.isNone(yield* provider.inspect("job_1:unknown:1")))
        yield* provider.cancel(key)
        assert.strictEqual(Option.getOrThrow(yield* provider.inspect(key)).state, "compensated")
      })
    ))

  it.live("a timeout is an unknown outcome; 503 and 429 are transient; 422 is permanent", () =>
    withEndpoint((endpoint) =>
      Effect.gen(function*() {
        const provider = yield* Providers
        const key = `job_1:${hash}:2`
        // The endpoint takes the call and holds its answer: the provider stops waiting at its timeout.
        endpoint.mode = { hold: true }
        const timedOut = yield* impatient(
          endpoint,
          Effect.exit(Effect.gen(function*() {
            return yield* (yield* Providers).execute({ key, proposalHash: hash, document })
          }))
        )
        assert.strictEqual(failureTag(timedOut), "ProviderTimeout")
        endpoint.mode = {}
        // The call that timed out did its side effect once the endpoint got to it: inspecting by key finds it.
        // (It may reach the endpoint after the provider gave up on it; a liveness guard, not a bound.)
        for (let i = 0; i < 3000 && endpoint.held.length === 0; i++) yield* Effect.sleep("20 millis")
        assert.strictEqual(endpoint.held.length, 1, "the call reached the endpoint")
        for (const answer of endpoint.held.splice(0)) answer()
        assert.strictEqual(Option.getOrThrow(yield* provider.inspect(key)).state, "succeeded")
        for (
          const [status, tag] of [[503, "ProviderTransient"], [429, "ProviderTransient"], [
            422,
            "ProviderPermanent"
          ]] as const
        ) {
          endpoint.mode = { status }
          assert.strictEqual(
            failureTag(yield* Effect.exit(provider.execute({ key, proposalHash: hash, document }))),
            tag
          )
          assert.strictEqual(failureTag(yield* Effect.exit(provider.cancel(key))), tag)
        }
        endpoint.mode = { status: 200 }
        // A 2xx the service cannot read from execute: the outcome is unknown.
        assert.strictEqual(
          failureTag(yield* Effect.exit(provider.execute({ key, proposalHash: hash, document }))),
          "ProviderTimeout"
        )
      })
    ))

  it.live("a wrong secret is refused by the endpoint (401): permanent, and nothing is done", () =>
    withEndpoint((endpoint) =>
      Effect.gen(function*() {
        const provider = yield* Providers
        const exit = yield* Effect.exit(provider.execute({ key: `job_1:${hash}:3`, proposalHash: hash, document }))
        assert.strictEqual(failureTag(exit), "ProviderPermanent")
        assert.strictEqual(endpoint.effects.size, 0)
        assert.deepStrictEqual(endpoint.seen, [])
      }), "not-the-secret"))

  it("signs `<t>.<body>` with HMAC-SHA256, as the README says", () => {
    const t = 1_700_000_000
    assert.strictEqual(
      HttpProvider.signature("k", t, "{}"),
      `t=${t},v1=${createHmac("sha256", "k").update(`${t}.{}`).digest("hex")}`
    )
  })
})
