import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, it } from "@effect/vitest"
import { Cause, ConfigProvider, Context, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { createServer } from "node:http"
import type { Server } from "node:http"
import { connect } from "node:net"
import * as JoinRoute from "../src/http/JoinRoute.ts"
import type { NodeRoute } from "../src/http/JoinRoute.ts"
import { HttpLive, makeNodeServer } from "../src/http/Server.ts"
import { Unavailable } from "../src/schema/Errors.ts"
import { layerMemory } from "../src/services/waitlist/MemoryWaitlist.ts"
import { Waitlist, withPause } from "../src/services/waitlist/Waitlist.ts"
import * as Logs from "./support/Logs.ts"
import { makeTestLayer } from "./support/makeTestLayer.ts"

/**
 * `makeNodeServer` takes the router's `request` listener, which @effect/platform-node's `NodeHttpServer`
 * adds to the node:http server, off that server and calls it itself, after `JoinRoute` has answered the
 * joins it can (which halves the server CPU of a join: bench/waitlist.ts). These tests fail when the
 * platform changes what that relies on: that it adds one `request` listener, which answers when another
 * listener calls it; and the exact bytes its own route answers the waitlist's requests with, which
 * `JoinRoute` copies (status line, headers in their order, body: all but the date), leaving the
 * connection as the platform does.
 */

const landing = "https://landing.example"
// WAITLIST_PAUSED is read by `withPause` only.
const config = ConfigProvider.layer(
  ConfigProvider.fromUnknown({ WAITLIST_ALLOWED_ORIGINS: landing, WAITLIST_PAUSED: "true" })
)

interface Started {
  readonly port: number
  readonly node: Server
  /** The `request` listeners the platform added to the node:http server, in order. */
  readonly installed: ReadonlyArray<unknown>
  /** The requests `JoinRoute` answered. */
  readonly routed: () => number
}

/**
 * The service's HTTP stack over `waitlist`, on the node:http server `make` gives (with `JoinRoute`, when
 * `make` is `makeNodeServer`, as `nodeServer` composes them), on an ephemeral port, for the test's scope.
 */
const start = <E>(waitlist: Layer.Layer<Waitlist, E>, make: (route: NodeRoute) => Server) =>
  Effect.gen(function*() {
    const installed: Array<unknown> = []
    let routed = 0
    let server: Server | undefined
    const listen = (route: NodeRoute) => {
      const node = make((request, response) => {
        const answered = route(request, response)
        if (answered) routed++
        return answered
      })
      node.on("newListener", (event: string | symbol, listener: unknown) => {
        if (event === "request") installed.push(listener)
      })
      server = node
      return NodeHttpServer.layer(() => node, { host: "127.0.0.1", port: 0 })
    }
    const stack = HttpLive.pipe(
      Layer.provideMerge(Layer.unwrap(Effect.map(JoinRoute.make, listen))),
      Layer.provide(waitlist),
      Layer.provide(config)
    )
    const context = yield* Layer.build(stack)
    const address = Context.get(context, HttpServer.HttpServer).address
    assert(address._tag !== "UnixPathAddress")
    const started: Started = { port: address.port, node: server!, installed, routed: () => routed }
    return started
  })

/** With the takeover and `JoinRoute`, as the service runs. */
const takenOver = (route: NodeRoute) => makeNodeServer({ route })
/** The platform alone: a plain node:http server, every request served by Effect's router. */
const platformOnly = () => createServer()

interface Request {
  readonly method?: string
  readonly path?: string
  readonly headers?: Record<string, string>
  readonly body: string | Buffer
}

const bytesOf = (request: Request, last: boolean) => {
  const body = Buffer.from(request.body)
  const head = [
    `${request.method ?? "POST"} ${request.path ?? "/v1/waitlist"} HTTP/1.1`,
    "Host: 127.0.0.1",
    ...Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${body.length}`,
    ...(last ? ["Connection: close"] : []),
    "",
    ""
  ].join("\r\n")
  return Buffer.concat([Buffer.from(head, "latin1"), body])
}

/**
 * The requests' exact bytes on one new connection, each with a `Content-Length` (as `JoinRoute` requires),
 * the last with `Connection: close`; everything the server sent back until it closed, `Date` taken out.
 */
const exchange = (port: number, ...requests: ReadonlyArray<Request>) =>
  Effect.callback<string>((resume) => {
    const socket = connect(port, "127.0.0.1")
    const received: Array<Buffer> = []
    socket.on("data", (chunk) => received.push(chunk))
    socket.on("error", (error) => resume(Effect.die(error)))
    socket.on("close", () =>
      resume(Effect.succeed(Buffer.concat(received).toString("latin1").replaceAll(/\r\nDate: [^\r]*/gi, ""))))
    socket.end(Buffer.concat(requests.map((request, i) =>
      bytesOf(request, i === requests.length - 1)
    )))
  })

/** Asked next on the same connection: the first answer must leave it as the platform's does. */
const next: Request = { method: "GET", path: "/nowhere", body: "" }

/**
 * Each request sent to both servers, each over a store of its own in the same state, and then `next` on
 * the same connection: the answers must be the same bytes, with the expected status; and the fast path
 * must have answered every one of them.
 */
const expectSameBytes = (
  fast: Started,
  platform: Started,
  cases: ReadonlyArray<Request & { readonly status: number }>
) =>
  Effect.gen(function*() {
    const routedBefore = fast.routed()
    for (const { status, ...request } of cases) {
      const ours = yield* exchange(fast.port, request, next)
      const theirs = yield* exchange(platform.port, request, next)
      const what = JSON.stringify(request)
      assert.match(theirs, new RegExp(`^HTTP/1\\.1 ${status} [^]*HTTP/1\\.1 404 `), what)
      assert.strictEqual(ours, theirs, what)
    }
    assert.strictEqual(fast.routed() - routedBefore, cases.length, "every request was answered by JoinRoute")
  })

const json = { "Content-Type": "application/json" }
const fromLanding = { ...json, Origin: landing }
const document = (email: unknown, extra: object = {}) => JSON.stringify({ email, source: "landing", ...extra })

let counter = 0
const unique = () => `takeover.${process.pid}.${++counter}@example.com`

/** Every rule of the contract once, with repeats: the stores must see the same sequence. */
const contractCases = () => {
  const address = unique()
  return [
    { headers: json, body: document(address), status: 200 },
    { headers: json, body: document(address), status: 200 },
    { headers: json, body: document(address.toUpperCase()), status: 200 },
    { headers: { "Content-Type": "Application/JSON; charset=utf-8" }, body: document(unique()), status: 200 },
    { path: "/v1/waitlist?from=landing", headers: json, body: document(unique()), status: 200 },
    { headers: fromLanding, body: document(address), status: 200 },
    { headers: { ...json, Origin: "https://elsewhere.example" }, body: document(unique()), status: 200 },
    { headers: { "Content-Type": "text/plain" }, body: document(unique()), status: 400 },
    { headers: { "Content-Type": "text/plain", Origin: landing }, body: document(unique()), status: 400 },
    { body: document(unique()), status: 400 },
    { headers: json, body: "{", status: 400 },
    { headers: json, body: "", status: 400 },
    { headers: json, body: "[]", status: 400 },
    { headers: json, body: Buffer.from([0x7b, 0xff, 0x7d]), status: 400 },
    { headers: json, body: document(unique(), { name: "Ann" }), status: 400 },
    { headers: json, body: JSON.stringify({ email: unique(), source: "elsewhere" }), status: 400 },
    { headers: json, body: document("no-at-sign"), status: 422 },
    { headers: fromLanding, body: document("no-at-sign"), status: 422 },
    { headers: json, body: document(5), status: 422 },
    { headers: json, body: JSON.stringify({ source: "landing" }), status: 422 },
    { headers: json, body: document(`${"a".repeat(250)}@b.co`), status: 422 }
  ]
}

/** What a store that cannot join answers: 503 with its Retry-After, after the document's own checks. */
const unavailableCases = () => [
  { headers: json, body: document(unique()), status: 503 },
  { headers: fromLanding, body: document(unique()), status: 503 },
  { headers: json, body: document("no-at-sign"), status: 422 },
  { headers: json, body: "{", status: 400 }
]

const failing = (join: Waitlist["Service"]["join"]) => makeTestLayer(Waitlist)({ join })

describe("the takeover of the platform's request listener", () => {
  it.live("the platform installs its router as one `request` listener, which the takeover takes off", () =>
    Effect.gen(function*() {
      const server = yield* start(layerMemory, takenOver)
      // A request answered through the router: the taken listener still serves, called by the dispatcher.
      const notFound = yield* exchange(server.port, next)
      assert.match(notFound, /^HTTP\/1\.1 404 /)
      const joined = yield* exchange(server.port, { headers: json, body: document(unique()) })
      assert.match(joined, /^HTTP\/1\.1 200 /)
      assert.strictEqual(server.routed(), 1, "the join was JoinRoute's, the 404 the router's")
      assert.strictEqual(server.installed.length, 1, "the platform added one request listener")
      // Taken off the server: the one listener left is the dispatcher, and it calls the platform's.
      const listeners = server.node.listeners("request")
      assert.strictEqual(listeners.length, 1)
      assert.notStrictEqual(listeners[0], server.installed[0])
    }))
})

describe("JoinRoute answers byte for byte as the platform's own route", () => {
  it.live("every rule of the contract, on a store that joins", () =>
    Effect.gen(function*() {
      const fast = yield* start(layerMemory, takenOver)
      const platform = yield* start(layerMemory, platformOnly)
      yield* expectSameBytes(fast, platform, contractCases())
    }))

  it.live("a store that is unavailable, paused, or failing with a retry delay JoinRoute has not prepared", () =>
    Effect.gen(function*() {
      for (
        const waitlist of [
          failing(() => Effect.fail(new Unavailable({ retryAfter: 5 }))),
          failing(() => Effect.fail(new Unavailable({ retryAfter: 7 }))),
          withPause(layerMemory)
        ]
      ) {
        const fast = yield* start(waitlist, takenOver)
        const platform = yield* start(waitlist, platformOnly)
        yield* expectSameBytes(fast, platform, unavailableCases())
      }
    }))

  it.live("a defect: 503, and logged with its cause on both paths", () =>
    Effect.gen(function*() {
      const logs = Logs.collect()
      const waitlist = failing(() => Effect.die(new Error("bug"))).pipe(Layer.provideMerge(logs.layer))
      const fast = yield* start(waitlist, takenOver)
      const platform = yield* start(waitlist, platformOnly)
      yield* expectSameBytes(fast, platform, unavailableCases().slice(0, 1))
      const errors = logs.entries.filter((entry) => entry.level === "Error")
      assert.deepStrictEqual(errors.map((entry) => entry.message), ["joinWaitlist failed", "joinWaitlist failed"])
      for (const entry of errors) assert.include(Cause.pretty(entry.cause), "bug")
    }))
})
