import { NodeHttpServer } from "@effect/platform-node"
import { Config, Effect, Layer, Option } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { createServer } from "node:http"
import { Api } from "./Api.ts"
import { WaitlistHttpLive, WaitlistMethodsLive } from "./WaitlistHttp.ts"

/** Every route the service serves: the API, its OpenAPI document and docs page, and the extra methods. */
export const RoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(Api, { openapiPath: "/openapi.json" }).pipe(Layer.provide(WaitlistHttpLive)),
  HttpApiScalar.layer(Api, { path: "/docs" }),
  WaitlistMethodsLive
)

/**
 * The routes served by whichever `HttpServer` is provided. Paths match exactly, as published: no case
 * folding and no extra slashes, so that no undocumented alias of an operation exists. Nothing is logged
 * per request: on this path a logger costs as much as the rest of the request does.
 */
export const HttpLive = HttpRouter.serve(RoutesLive, {
  disableLogger: true,
  routerConfig: { caseSensitive: true, ignoreTrailingSlash: false, ignoreDuplicateSlashes: false }
})

export const ServerConfig = Config.all({
  port: Config.Port("PORT").pipe(Config.withDefault(8080)),
  host: Config.option(Config.String("HOST"))
})

/** A Node HTTP server on `HOST` (all interfaces when unset) and `PORT`. */
export const NodeServerLive = Layer.unwrap(
  Effect.map(ServerConfig, ({ host, port }) =>
    NodeHttpServer.layer(
      createServer,
      Option.match(host, { onNone: () => ({ port }), onSome: (host) => ({ host, port }) })
    ))
)
