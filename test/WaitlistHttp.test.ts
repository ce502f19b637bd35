import { assert, describe, layer } from "@effect/vitest"
import { Cause, ConfigProvider, Effect, Layer, Stream } from "effect"
import { request } from "node:http"
import { connect } from "node:net"
import { Unavailable } from "../src/schema/Errors.ts"
import { layerMemory } from "../src/services/waitlist/MemoryWaitlist.ts"
import { layerMigrated as waitlistOnStore } from "../src/services/waitlist/SqlWaitlist.ts"
import { Waitlist, withPause } from "../src/services/waitlist/Waitlist.ts"
import { baseUrl, comparableHeaders, join, postJson, send, serverWith } from "./support/Http.ts"
import type { RawResponse } from "./support/Http.ts"
import * as Logs from "./support/Logs.ts"
import { makeTestLayer } from "./support/makeTestLayer.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

const joinedBody = `{"status":"joined"}`
const invalidJson = `{"error":"invalid_json"}`
const invalidEmail = `{"error":"invalid_email"}`
const unavailable = `{"error":"unavailable"}`

let counter = 0
const unique = (local = "http") => `${local}.${process.pid}.${++counter}@example.com`

const expectAnswer = (response: RawResponse, status: number, body: string) => {
  assert.strictEqual(response.status, status, `status for ${response.body}`)
  assert.strictEqual(response.body, body)
  assert.strictEqual(response.headers["content-type"], "application/json")
}

const json = { "content-type": "application/json" }

/** A body of exactly `size` bytes that is a valid join document (padded with JSON whitespace). */
const paddedDocument = (size: number, email = unique("big")) => {
  const document = JSON.stringify({ email, source: "landing" })
  return document + " ".repeat(size - Buffer.byteLength(document))
}

/**
 * Most joins are answered by the Node server's `JoinRoute`, and the rest (here: a chunked body) by the
 * router's handler of the same endpoint: the same document gets the same answer from both, byte for
 * byte but the date. Each document is sent once each way, so every address in `documents` is new to
 * the first send only when `fresh` gives a new one per call.
 */
const answersAlikeOnBothPaths = (
  url: string,
  documents: ReadonlyArray<() => string>,
  headers: Record<string, string> = json
) =>
  Effect.forEach(documents, (document) =>
    Effect.gen(function*() {
      const routed = yield* send(url, { headers, body: document() })
      const chunked = yield* send(url, { headers, chunks: [document()] })
      assert.strictEqual(routed.status, chunked.status)
      assert.strictEqual(routed.body, chunked.body)
      const { "transfer-encoding": _, ...routedHeaders } = comparableHeaders(routed.headers)
      assert.deepStrictEqual(routedHeaders, comparableHeaders(chunked.headers))
    }), { discard: true })

const sampleDocuments = [
  () => JSON.stringify({ email: unique(), source: "landing" }),
  () => JSON.stringify({ email: "no-at-sign", source: "landing" }),
  () => JSON.stringify({ email: unique(), source: "elsewhere" }),
  () => "not json"
]

const members = Effect.flatMap(Waitlist, (waitlist) => Stream.runCollect(waitlist.members))

layer(serverWith(layerMemory).pipe(Layer.provideMerge(layerMemory)), { excludeTestServices: true })(
  "POST /v1/waitlist (in-memory store)",
  (it) => {
    describe("200 joined", () => {
      it.effect("answers a valid document with exactly the contract's body", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          expectAnswer(yield* join(url, unique()), 200, joinedBody)
        }))

      it.effect("answers a repeated address, in any case, with the same status, body and headers", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const address = unique("Repeat")
          const first = yield* join(url, address)
          const again = yield* join(url, address)
          const upper = yield* join(url, address.toUpperCase())
          for (const answer of [again, upper]) {
            assert.strictEqual(answer.status, first.status)
            assert.strictEqual(answer.body, first.body)
            assert.deepStrictEqual(comparableHeaders(answer.headers), comparableHeaders(first.headers))
          }
          expectAnswer(first, 200, joinedBody)
        }))

      it.effect("accepts application/json with parameters and in any case", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          for (
            const type of ["application/json; charset=utf-8", "APPLICATION/JSON", "Application/Json ; charset=UTF-8"]
          ) {
            const body = JSON.stringify({ email: unique(), source: "landing" })
            expectAnswer(yield* send(url, { headers: { "content-type": type }, body }), 200, joinedBody)
          }
        }))

      it.effect("accepts a body of exactly 64 KiB, with a Content-Length or chunked", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          expectAnswer(yield* send(url, { headers: json, body: paddedDocument(65536) }), 200, joinedBody)
          const chunked = paddedDocument(65536)
          expectAnswer(
            yield* send(url, { headers: json, chunks: [chunked.slice(0, 1000), chunked.slice(1000)] }),
            200,
            joinedBody
          )
        }))

      it.effect("sends 100 Continue to a client that waits for it, then answers", () =>
        Effect.gen(function*() {
          const url = new URL(yield* baseUrl)
          const body = JSON.stringify({ email: unique("continue"), source: "landing" })
          // The body is sent only once the server has asked for it: without the 100, this never ends.
          const answer = yield* Effect.callback<{ status: number; body: string }>((resume) => {
            const req = request({
              host: url.hostname,
              port: url.port,
              path: "/v1/waitlist",
              method: "POST",
              agent: false,
              headers: { ...json, expect: "100-continue", "content-length": Buffer.byteLength(body) }
            }, (res) => {
              let text = ""
              res.setEncoding("utf8").on("data", (chunk: string) => text += chunk)
              res.on("end", () => resume(Effect.succeed({ status: res.statusCode!, body: text })))
            })
            req.on("continue", () => req.end(body))
          })
          assert.deepStrictEqual(answer, { status: 200, body: joinedBody })
        }))

      it.effect("counts length in code points: 254 with emoji is accepted, 255 is refused", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const domain = `@x${counter++}.co`
          const at254 = "😀".repeat(254 - [...domain].length) + domain
          assert.strictEqual([...at254].length, 254)
          assert.isAbove(at254.length, 254)
          expectAnswer(yield* join(url, at254), 200, joinedBody)
          expectAnswer(yield* join(url, "😀" + at254), 422, invalidEmail)
          const ascii254 = "a".repeat(254 - domain.length) + domain
          expectAnswer(yield* join(url, ascii254), 200, joinedBody)
          expectAnswer(yield* join(url, "a" + ascii254), 422, invalidEmail)
        }))

      it.effect("stores U+0000 and other odd characters exactly as sent", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const odd = `a\u0000b\u0001"c,d;e😀.${counter++}@example.com`
          expectAnswer(yield* join(url, odd), 200, joinedBody)
          assert.isTrue((yield* members).some((m) => m.email === odd))
        }))
    })

    describe("400 invalid_json", () => {
      it.effect("refuses a missing or other content type, even with a valid document", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const body = JSON.stringify({ email: unique(), source: "landing" })
          expectAnswer(yield* send(url, { body }), 400, invalidJson)
          for (const type of ["text/plain", "application/jsonx", "application/x-www-form-urlencoded", "json"]) {
            expectAnswer(yield* send(url, { headers: { "content-type": type }, body }), 400, invalidJson)
          }
        }))

      it.effect("refuses bodies that are not one JSON value", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          for (const body of ["", " ", "{", "NaN", "{} x", `{"email":"a@b.co","source":"landing"}}`, "\uFEFF{}"]) {
            expectAnswer(yield* send(url, { headers: json, body }), 400, invalidJson)
          }
        }))

      it.effect("refuses bytes that are not UTF-8", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const bytes = Buffer.concat([
            Buffer.from(`{"email":"a`),
            Buffer.from([0xff, 0xfe]),
            Buffer.from(`@b.co","source":"landing"}`)
          ])
          expectAnswer(yield* send(url, { headers: json, body: bytes }), 400, invalidJson)
          // An encoded surrogate (CESU-8) is not UTF-8 either.
          const surrogate = Buffer.concat([
            Buffer.from(`{"email":"a`),
            Buffer.from([0xed, 0xa0, 0x80]),
            Buffer.from(`@b.co","source":"landing"}`)
          ])
          expectAnswer(yield* send(url, { headers: json, body: surrogate }), 400, invalidJson)
        }))

      it.effect("refuses JSON values that are not objects", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          for (const value of [null, 1, "a@b.co", true, [], [{ email: "a@b.co", source: "landing" }]]) {
            expectAnswer(yield* postJson(url, value), 400, invalidJson)
          }
        }))

      it.effect("refuses other members and a source that is not exactly landing", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const email = unique()
          for (
            const document of [
              { email, source: "landing", name: "Ann" },
              { email, source: "landing", __proto__x: 1 },
              { email },
              { email, source: "Landing" },
              { email, source: "landing " },
              { email, source: null },
              { email, source: ["landing"] },
              {}
            ]
          ) {
            expectAnswer(yield* postJson(url, document), 400, invalidJson)
          }
          expectAnswer(
            yield* send(url, { headers: json, body: `{"email":"${email}","source":"landing","__proto__":{}}` }),
            400,
            invalidJson
          )
        }))

      it.effect("applies the rules in order: a bad document wins over a bad address", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          expectAnswer(yield* postJson(url, { email: "bad", source: "x" }), 400, invalidJson)
          expectAnswer(yield* postJson(url, { email: "bad", source: "landing", extra: 1 }), 400, invalidJson)
          expectAnswer(yield* postJson(url, { email: 5 }), 400, invalidJson)
          expectAnswer(yield* send(url, { body: `{"email":"bad","source":"landing"}` }), 400, invalidJson)
          expectAnswer(
            yield* send(url, { headers: { "content-type": "text/plain" }, body: paddedDocument(70000, "bad") }),
            400,
            invalidJson
          )
        }))

      it.effect("refuses a body over 64 KiB declared by Content-Length, and closes the connection", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const response = yield* send(url, { headers: json, body: paddedDocument(65537) })
          expectAnswer(response, 400, invalidJson)
          assert.strictEqual(response.headers.connection, "close")
          const huge = yield* send(url, { headers: json, body: paddedDocument(4 * 1024 * 1024) })
          expectAnswer(huge, 400, invalidJson)
        }))

      it.effect("refuses a chunked body over 64 KiB, and closes the connection", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const over = paddedDocument(65537)
          const response = yield* send(url, { headers: json, chunks: [over.slice(0, 40000), over.slice(40000)] })
          expectAnswer(response, 400, invalidJson)
          assert.strictEqual(response.headers.connection, "close")
          const big = paddedDocument(2 * 1024 * 1024)
          const chunks = Array.from({ length: 32 }, (_, i) => big.slice(i * 65536, (i + 1) * 65536))
          expectAnswer(yield* send(url, { headers: json, chunks }), 400, invalidJson)
        }))

      it.effect("lets a client still sending a large body read the 400 (graceful close)", () =>
        Effect.gen(function*() {
          const url = new URL(yield* baseUrl)
          const answer = yield* Effect.callback<string>((resume) => {
            const socket = connect(Number(url.port), url.hostname)
            const received: Array<Buffer> = []
            socket.on("data", (chunk) => received.push(chunk))
            socket.on("error", () => {})
            socket.on("close", () => resume(Effect.succeed(Buffer.concat(received).toString("latin1"))))
            socket.write(
              "POST /v1/waitlist HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n"
            )
            const chunk = Buffer.alloc(65536, 0x20)
            let sent = 0
            const pump = () => {
              while (sent < 10_000_000 && !socket.destroyed) {
                sent += chunk.length
                if (!socket.write(chunk)) return socket.once("drain", pump)
              }
            }
            pump()
          })
          assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/)
          assert.isTrue(answer.endsWith(`\r\n\r\n${invalidJson}`), answer.slice(-200))
        }))
    })

    describe("422 invalid_email", () => {
      it.effect("refuses a missing, non-string or malformed address", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          for (
            const email of [
              undefined,
              null,
              5,
              ["a@b.co"],
              { a: 1 },
              "",
              "a@b",
              "ab.co",
              "a@@b.co",
              "a b@c.co",
              "a@b..co",
              "a@.b.co",
              "a@b.co.",
              "@b.co",
              "a@b.c\u00a0o",
              "a@b.c\no",
              "a\u2028@b.co"
            ]
          ) {
            const document = email === undefined ? { source: "landing" } : { email, source: "landing" }
            expectAnswer(yield* postJson(url, document), 422, invalidEmail)
          }
        }))

      it.effect("refuses an address with an unpaired surrogate", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          for (const escaped of [`\\ud83d@b.co`, `a\\udc00@b.co`, `a@b.co\\ud800`]) {
            const body = `{"email":"${escaped}","source":"landing"}`
            expectAnswer(yield* send(url, { headers: json, body }), 422, invalidEmail)
          }
        }))
    })

    describe("around the operation", () => {
      it.effect("answers alike whichever of its two handlers serves the request", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          yield* answersAlikeOnBothPaths(url, sampleDocuments)
          yield* answersAlikeOnBothPaths(url, sampleDocuments.slice(0, 1), { "content-type": "text/plain" })
        }))

      it.effect("answers other methods 405 with Allow", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          for (const method of ["GET", "PUT", "PATCH", "DELETE", "TRACE", "PROPFIND", "PURGE", "SEARCH"]) {
            const response = yield* send(url, { method })
            expectAnswer(response, 405, `{"error":"method_not_allowed"}`)
            assert.strictEqual(response.headers.allow, "POST, OPTIONS")
          }
          const head = yield* send(url, { method: "HEAD" })
          assert.strictEqual(head.status, 405)
          assert.strictEqual(head.headers.allow, "POST, OPTIONS")
        }))

      it.effect("matches the published path exactly; anything else is 404", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const body = JSON.stringify({ email: unique(), source: "landing" })
          for (const path of ["/v1/waitlist/", "/v1/Waitlist", "//v1/waitlist", "/v1/waitlists", "/"]) {
            const response = yield* send(url, { path, headers: json, body })
            assert.strictEqual(response.status, 404, path)
            assert.strictEqual(response.body, "")
          }
          expectAnswer(yield* send(url, { path: "/v1/waitlist?x=1", headers: json, body }), 200, joinedBody)
        }))

      it.effect("answers OPTIONS 204 with no CORS header for an origin that is not configured", () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const response = yield* send(url, {
            method: "OPTIONS",
            headers: { origin: "https://evil.example", "access-control-request-method": "POST" }
          })
          assert.strictEqual(response.status, 204)
          assert.deepStrictEqual(Object.keys(response.headers).filter((h) => h.startsWith("access-control-")), [])
          const joined = yield* join(url, unique())
          assert.isUndefined(joined.headers["access-control-allow-origin"])
        }))
    })
  }
)

const landing = "https://landing.example"

layer(
  serverWith(layerMemory).pipe(
    Layer.provide(
      ConfigProvider.layer(ConfigProvider.fromUnknown({ WAITLIST_ALLOWED_ORIGINS: `${landing}, https://b.example` }))
    )
  ),
  { excludeTestServices: true }
)("CORS for configured landing-page origins", (it) => {
  it.effect("answers the preflight and the POST of a configured origin only", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const preflight = yield* send(url, {
        method: "OPTIONS",
        headers: { origin: landing, "access-control-request-method": "POST" }
      })
      assert.strictEqual(preflight.status, 204)
      assert.strictEqual(preflight.headers["access-control-allow-origin"], landing)
      assert.strictEqual(preflight.headers["access-control-allow-methods"], "POST, OPTIONS")
      assert.strictEqual(preflight.headers["access-control-allow-headers"], "Content-Type")
      const joined = yield* join(url, unique())
      assert.isUndefined(joined.headers["access-control-allow-origin"])
      const fromLanding = yield* postJson(url, { email: unique(), source: "landing" }, { origin: landing })
      expectAnswer(fromLanding, 200, joinedBody)
      assert.strictEqual(fromLanding.headers["access-control-allow-origin"], landing)
      const other = yield* send(url, { method: "OPTIONS", headers: { origin: "https://c.example" } })
      assert.isUndefined(other.headers["access-control-allow-origin"])
      yield* answersAlikeOnBothPaths(url, sampleDocuments, { ...json, origin: landing })
    }))
})

const failing = (join: Waitlist["Service"]["join"]) => makeTestLayer(Waitlist)({ join })

const expectUnavailable = (response: RawResponse, retryAfter: string) => {
  expectAnswer(response, 503, unavailable)
  assert.strictEqual(response.headers["retry-after"], retryAfter)
}

layer(serverWith(failing(() => Effect.fail(new Unavailable({ retryAfter: 7 })))), { excludeTestServices: true })(
  "503 when the store is unavailable",
  (it) => {
    it.effect("answers unavailable with Retry-After", () =>
      Effect.gen(function*() {
        expectUnavailable(yield* join(yield* baseUrl, unique()), "7")
        yield* answersAlikeOnBothPaths(yield* baseUrl, sampleDocuments)
      }))
  }
)

const defectLogs = Logs.collect()

layer(serverWith(failing(() => Effect.die(new Error("bug")))).pipe(Layer.provide(defectLogs.layer)), {
  excludeTestServices: true
})(
  "503, never 500, on a defect",
  (it) => {
    it.effect("answers a defect as unavailable, and logs it as an error with its cause", () =>
      Effect.gen(function*() {
        expectUnavailable(yield* join(yield* baseUrl, unique()), "5")
        yield* answersAlikeOnBothPaths(yield* baseUrl, sampleDocuments)
        const errors = defectLogs.entries.filter((entry) => entry.level === "Error")
        assert.isAbove(errors.length, 0, "the defect was logged")
        for (const entry of errors) {
          assert.strictEqual(entry.message, "joinWaitlist failed")
          assert.include(Cause.pretty(entry.cause), "bug", "logged with its cause")
        }
      }))
  }
)

layer(
  serverWith(withPause(layerMemory)).pipe(
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ WAITLIST_PAUSED: "true" })))
  ),
  { excludeTestServices: true }
)("paused by the operator", (it) => {
  it.effect("answers unavailable, and still checks the document first", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      expectUnavailable(yield* join(url, unique()), "30")
      expectAnswer(yield* join(url, "bad"), 422, invalidEmail)
      yield* answersAlikeOnBothPaths(url, sampleDocuments)
    }))
})

const live = waitlistOnStore().pipe(Layer.provide(TestDatabase.configLayer()))

layer(serverWith(live).pipe(Layer.provideMerge(live)), { excludeTestServices: true })(
  `POST /v1/waitlist (Live layer on ${TestDatabase.kind})`,
  (it) => {
    it.effect("stores one member for concurrent case variants, and answers them all alike", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const waitlist = yield* Waitlist
        const address = unique("Concurrent")
        const before = yield* waitlist.count
        const answers = yield* Effect.forEach(
          Array.from({ length: 30 }, (_, i) => [address, address.toLowerCase(), address.toUpperCase()][i % 3]!),
          (variant) => join(url, variant),
          { concurrency: "unbounded" }
        )
        for (const answer of answers) expectAnswer(answer, 200, joinedBody)
        assert.strictEqual(yield* waitlist.count, before + 1)
        const stored = (yield* members).filter((m) => m.email.toLowerCase() === address.toLowerCase())
        assert.strictEqual(stored.length, 1)
      }))

    it.effect("round-trips U+0000 and astral characters through the database", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const odd = `nul\u0000\u0001"q,s;😀.${counter++}@exämple.com`
        expectAnswer(yield* join(url, odd), 200, joinedBody)
        expectAnswer(yield* join(url, odd.toUpperCase()), 200, joinedBody)
        assert.deepStrictEqual(
          (yield* members).filter((m) => m.email.toLowerCase() === odd.toLowerCase()).map((m) => m.email),
          [odd]
        )
      }))
  }
)

/** Bytes sent as they are on a new connection; everything the server sends back until it closes. */
const exchange = (url: string, bytes: string) =>
  Effect.callback<string>((resume) => {
    const { hostname, port } = new URL(url)
    const socket = connect(Number(port), hostname)
    const received: Array<Buffer> = []
    socket.on("data", (chunk) => received.push(chunk))
    socket.on("error", () => {})
    socket.on("close", () => resume(Effect.succeed(Buffer.concat(received).toString("latin1"))))
    socket.end(bytes)
  })

layer(serverWith(layerMemory), { excludeTestServices: true })("requests the HTTP parser refuses", (it) => {
  it.effect("are answered 400 invalid_json as JSON, not with Node's bare 400", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const head = "POST /v1/waitlist HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      for (
        const request of [
          `${head}Content-Length: abc\r\n\r\n{}`,
          `${head}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
          `${head}Transfer-Encoding: chunked\r\n\r\n5\r\n{"ema\r\nZZ\r\n`,
          `${head}X-Big: ${"a".repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`,
          `${head}Expect: something-else\r\nContent-Length: 2\r\n\r\n{}`,
          `FOO /v1/waitlist HTTP/1.1\r\nHost: x\r\n\r\n`
        ]
      ) {
        const answer = yield* exchange(url, request)
        assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/, JSON.stringify(request))
        assert.match(answer, /\r\ncontent-type: application\/json\r\n/i)
        assert.isTrue(answer.endsWith(`\r\n\r\n${invalidJson}`), answer)
      }
    }))

  it.effect("CONNECT is answered 405 like any other method", () =>
    Effect.gen(function*() {
      const answer = yield* exchange(yield* baseUrl, "CONNECT /v1/waitlist HTTP/1.1\r\nHost: x\r\n\r\n")
      assert.match(answer, /^HTTP\/1\.1 405 Method Not Allowed\r\n/)
      assert.match(answer, /\r\nAllow: POST, OPTIONS\r\n/i)
      assert.isTrue(answer.endsWith(`\r\n\r\n{"error":"method_not_allowed"}`), answer)
    }))
})
