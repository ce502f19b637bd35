import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpApiScalar from "effect/http-api/HttpApiScalar"
import * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { createServer } from "node:http"
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { Api } from "./Api.ts"
import { HealthLive } from "./Health.ts"
import * as JoinRoute from "./JoinRoute.ts"
import type { NodeRoute } from "./JoinRoute.ts"
import { LandingPageLive } from "./LandingPage.ts"
import * as RequestLog from "./RequestLog.ts"
import { WaitlistHttpLive, WaitlistMethodsLive } from "./WaitlistHttp.ts"

/** The routes besides the API and its documents: the extra methods, the landing page, the health checks. */
export const OtherRoutesLive = Layer.mergeAll(WaitlistMethodsLive, LandingPageLive, HealthLive)

/** Scalar's default fonts come from its CDN; the page uses the system's instead. */
export const docsOptions = { path: "/docs", scalar: { withDefaultFonts: false } } as const

/**
 * Every route the service serves: the API, its OpenAPI document and docs page, the extra methods, the
 * landing page, and the health checks.
 */
export const RoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }).pipe(Layer.provide(WaitlistHttpLive)),
  HttpApiScalar.layer(Api, docsOptions),
  OtherRoutesLive
)

/**
 * Paths match exactly, as published: no case folding and no extra slashes, so that no undocumented
 * alias of an operation exists. Effect's own request logger is off: it costs as much as the rest of the
 * request (see `RequestLog`).
 */
export const serveOptions = {
  disableLogger: true,
  routerConfig: {
    caseSensitive: true,
    ignoreTrailingSlash: false,
    ignoreDuplicateSlashes: false,
    // A path segment of any length Node accepts reaches its operation, which says what is wrong with it.
    maxParamLength: 16_384
  }
} as const

/** The routes served by whichever `HttpServer` is provided. */
export const HttpLive = HttpRouter.serve(RoutesLive, serveOptions)

export const ServerConfig = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(8080)),
  host: Config.option(Config.String("HOST"))
})

const badRequest = `{"error":"invalid_json"}`
const badRequestResponse = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
  + `Content-Length: ${badRequest.length}\r\nConnection: close\r\n\r\n${badRequest}`
const methodNotAllowed = `{"error":"method_not_allowed"}`

type Listener = (request: IncomingMessage, response: ServerResponse) => void

export interface NodeServerOptions {
  /** Logs every request once answered. */
  readonly requestLog?: RequestLog.RequestLog | undefined
  /** Served before the router (see `JoinRoute`). */
  readonly route?: NodeRoute | undefined
}

/**
 * The Node HTTP server under the service, with what Node answers by itself made to keep the contract:
 *
 * - A request Node cannot parse (a malformed `Content-Length`, broken chunked framing, oversized
 *   headers, an unknown method) never reaches a handler; it is a client program's fault, like any other
 *   body that is not a well-formed document, so it gets the contract's 400 body, not Node's bare one.
 *   Nothing is written once a response has begun.
 * - An `Expect` other than `100-continue` likewise (Node would answer a bare 417); `CONNECT` gets 405.
 * - Requests that arrive after the port opens but before the routes are attached wait for them: Node
 *   would otherwise hand them to nobody, and they would never be answered.
 * - With a `requestLog`, every request is logged once answered.
 * - With a `route`, it sees each request first, and the router gets what it leaves.
 *
 * The server's one `request` listener dispatches: the router's handler, which the platform attaches
 * with `server.on("request", …)`, is taken from the server and called from here.
 */
export const makeNodeServer = ({ requestLog, route }: NodeServerOptions = {}): Server => {
  let router: Listener | undefined
  const pending: Array<Parameters<Listener>> = []
  const dispatch = (listener: Listener, request: IncomingMessage, response: ServerResponse) => {
    if (route?.(request, response) !== true) listener(request, response)
  }
  const server = createServer((request, response) => {
    requestLog?.track(request, response)
    if (router === undefined) return void pending.push([request, response])
    dispatch(router, request, response)
  })
  server.on("newListener", (event: string | symbol, listener: Listener) => {
    if (event !== "request" || router !== undefined) return
    router = listener
    // Node adds the listener after this event: it is taken off once added, and the dispatcher calls it.
    process.nextTick(() => server.off("request", listener))
    setImmediate(() => {
      for (const [request, response] of pending.splice(0)) dispatch(listener, request, response)
    })
  })
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
    if (!socket.writable || response?.headersSent === true || error.code?.startsWith("HPE_") !== true) {
      return socket.destroy()
    }
    socket.end(badRequestResponse)
  })
  server.on("checkExpectation", (_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(400, {
      "content-type": "application/json",
      "content-length": badRequest.length,
      connection: "close"
    }).end(badRequest)
  })
  server.on("connect", (_request: IncomingMessage, socket: Duplex) => {
    socket.end(
      "HTTP/1.1 405 Method Not Allowed\r\nAllow: POST, OPTIONS\r\nContent-Type: application/json\r\n"
        + `Content-Length: ${methodNotAllowed.length}\r\nConnection: close\r\n\r\n${methodNotAllowed}`
    )
  })
  return server
}

/**
 * A Node HTTP server on `HOST` (all interfaces when unset) and `PORT`, with one JSON log line per
 * request unless `REQUEST_LOG=false`. The log is built first, so that it is flushed after the server
 * has answered its last request.
 */
export const NodeServerLive = Layer.unwrap(Effect.gen(function*() {
  const { host, port } = yield* ServerConfig
  const requestLog = (yield* RequestLog.Enabled) ? yield* RequestLog.make() : undefined
  return nodeServer(Option.match(host, { onNone: () => ({ port }), onSome: (host) => ({ host, port }) }), requestLog)
}))

/** The Node server (`makeNodeServer`) listening at `listen`, with the waitlist's `JoinRoute`. */
export const nodeServer = (
  listen: { readonly host?: string; readonly port: number },
  requestLog?: RequestLog.RequestLog
) =>
  Layer.unwrap(
    Effect.map(JoinRoute.make, (route) => NodeHttpServer.layer(() => makeNodeServer({ requestLog, route }), listen))
  )
