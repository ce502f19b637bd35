import { NodeHttpServer } from "@effect/platform-node"
import { Config, Effect, Layer, Option } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { createServer } from "node:http"
import type { Server } from "node:http"
import type { Duplex } from "node:stream"
import { Api } from "./Api.ts"
import { HealthLive } from "./Health.ts"
import { LandingPageLive } from "./LandingPage.ts"
import * as RequestLog from "./RequestLog.ts"
import { WaitlistHttpLive, WaitlistMethodsLive } from "./WaitlistHttp.ts"

/**
 * Every route the service serves: the API, its OpenAPI document and docs page, the extra methods, the
 * landing page, and the health checks.
 */
export const RoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }).pipe(Layer.provide(WaitlistHttpLive)),
  HttpApiScalar.layer(Api, { path: "/docs" }),
  WaitlistMethodsLive,
  LandingPageLive,
  HealthLive
)

/**
 * The routes served by whichever `HttpServer` is provided. Paths match exactly, as published: no case
 * folding and no extra slashes, so that no undocumented alias of an operation exists. Effect's own
 * request logger is off (it costs as much as the rest of the request); `requestLog`, when given, wraps
 * every request.
 */
export const makeHttpLive = (requestLog?: RequestLog.RequestLog) =>
  HttpRouter.serve(RoutesLive, {
    disableLogger: true,
    routerConfig: { caseSensitive: true, ignoreTrailingSlash: false, ignoreDuplicateSlashes: false },
    ...(requestLog === undefined ? {} : { middleware: requestLog })
  })

/** The service's HTTP stack, with one JSON log line per request unless `REQUEST_LOG=false`. */
export const HttpLive = Layer.unwrap(Effect.gen(function*() {
  const enabled = yield* RequestLog.Enabled
  return makeHttpLive(enabled ? yield* RequestLog.make() : undefined)
}))

export const ServerConfig = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(8080)),
  host: Config.option(Config.String("HOST"))
})

const badRequest = `{"error":"invalid_json"}`

/**
 * A Node HTTP server whose answer to a request it cannot parse (a malformed `Content-Length`, broken
 * chunked framing, ...) is still one of the contract's bodies: such a request is a client program's
 * fault, like any other body that is not a well-formed document. A header overflow keeps its 431, and
 * nothing is written once a response has begun.
 */
export const makeNodeServer = (): Server => {
  const server = createServer()
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    const response = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
    if (!socket.writable || response?.headersSent === true || error.code?.startsWith("HPE_") !== true) {
      return socket.destroy()
    }
    if (error.code === "HPE_HEADER_OVERFLOW") {
      return socket.end("HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n")
    }
    socket.end(
      "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
        + `Content-Length: ${badRequest.length}\r\nConnection: close\r\n\r\n${badRequest}`
    )
  })
  return server
}

/** A Node HTTP server on `HOST` (all interfaces when unset) and `PORT`. */
export const NodeServerLive = Layer.unwrap(
  Effect.map(ServerConfig, ({ host, port }) =>
    NodeHttpServer.layer(
      makeNodeServer,
      Option.match(host, { onNone: () => ({ port }), onSome: (host) => ({ host, port }) })
    ))
)
