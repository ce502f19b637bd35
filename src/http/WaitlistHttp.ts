import * as ByteSize from "effect/ByteSize"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpRouter from "effect/http/HttpRouter"
import type { HttpServerRequest } from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { METHODS } from "node:http"
import { InvalidJson, Unavailable } from "../schema/Errors.ts"
import { decodeJoinDocument, Joined, joined } from "../schema/Waitlist.ts"
import { retryAfter, Waitlist } from "../services/waitlist/Waitlist.ts"
import { Api, joinWaitlist } from "./Api.ts"
import * as RequestBody from "./RequestBody.ts"

/** Larger bodies are refused unread (docs/API.md, "The rules, in the order they are checked", rule 1). */
export const maxBody = RequestBody.limit(ByteSize.kibibytes(64))

const path = joinWaitlist.path

/**
 * The success body never varies: encoded once from its schema, and sent as it is by both handlers of
 * the endpoint. Encoding it again for every request cost more than any other single step of the handler.
 */
export const joinedBody = JSON.stringify(Schema.encodeSync(Joined)(joined))

const joinedResponse = HttpServerResponse.text(joinedBody, { contentType: "application/json" })

// The rest of an oversized body is never read: the answer closes the connection once it is sent, and
// the server half-closes first so that the client still reads it.
const refuseOversized = HttpEffect.appendPreResponseHandler((_, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "connection", "close"))
).pipe(Effect.andThen(Effect.fail(new InvalidJson())))

// Most joins never get here: `JoinRoute` answers them before the router. What it leaves to this handler
// is rare (a chunked body, one declared over the limit, `Expect`), and read with the platform's reader.
const readBody = (request: HttpServerRequest) =>
  Effect.flatMap(
    RequestBody.read(request, maxBody),
    (body) => body === undefined ? refuseOversized : Effect.succeed(body)
  )

const readJoinRequest = (request: HttpServerRequest) =>
  RequestBody.isJson(request)
    ? Effect.flatMap(readBody(request), (body) => Effect.fromResult(decodeJoinDocument(body)))
    : Effect.fail(new InvalidJson())

/** The landing-page origins allowed to call the waitlist from a browser (`WAITLIST_ALLOWED_ORIGINS`). */
export const AllowedOrigins = Config.String("WAITLIST_ALLOWED_ORIGINS").pipe(
  Config.withDefault(""),
  Config.map((value) => new Set(value.split(",").map((origin) => origin.trim()).filter((origin) => origin !== "")))
)

const allowOrigin = (origin: string) =>
  HttpEffect.appendPreResponseHandler((_, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, { "access-control-allow-origin": origin, vary: "Origin" }))
  )

export const WaitlistHttpLive = HttpApiBuilder.group(Api, "Waitlist", (handlers) =>
  Effect.gen(function*() {
    const waitlist = yield* Waitlist
    const origins = yield* AllowedOrigins
    return handlers.handleRaw("joinWaitlist", ({ request }) => {
      const origin = request.headers.origin
      return (origin !== undefined && origins.has(origin) ? allowOrigin(origin) : Effect.void).pipe(
        Effect.andThen(readJoinRequest(request)),
        Effect.flatMap(waitlist.join),
        Effect.as(joinedResponse),
        // A defect is a bug, not an answer: log it with its cause, and answer the contract's catch-all.
        Effect.catchDefect((defect) =>
          Effect.logError("joinWaitlist failed", Cause.die(defect)).pipe(
            Effect.andThen(Effect.fail(new Unavailable({ retryAfter: retryAfter.storeFailure })))
          )
        )
      )
    })
  }))

const allow = "POST, OPTIONS"

const methodNotAllowed = HttpServerResponse.jsonUnsafe({ error: "method_not_allowed" }, {
  status: 405,
  headers: { allow }
})

/** CORS preflight: answered for the configured origins only; any other origin learns nothing. */
const preflight = Effect.gen(function*() {
  const origins = yield* AllowedOrigins
  return (request: HttpServerRequest) => {
    const origin = request.headers.origin
    if (origin === undefined || !origins.has(origin)) {
      return Effect.succeed(HttpServerResponse.empty({ status: 204, headers: { allow } }))
    }
    return Effect.succeed(HttpServerResponse.empty({
      status: 204,
      headers: {
        allow,
        "access-control-allow-origin": origin,
        "access-control-allow-methods": allow,
        "access-control-allow-headers": "Content-Type",
        "access-control-max-age": "600",
        vary: "Origin"
      }
    }))
  }
})

// Every method Node parses but POST and OPTIONS; HEAD is routed as GET, CONNECT never reaches routes.
const otherMethods = METHODS.filter((method) => !["POST", "OPTIONS", "HEAD", "CONNECT"].includes(method))

/** What the contract does not list but HTTP expects of the path: 405 for other methods, preflight. */
export const WaitlistMethodsLive = Layer.unwrap(Effect.map(preflight, (handler) =>
  Layer.mergeAll(
    HttpRouter.add("OPTIONS", path, handler),
    // The router's signature lists the common methods only; it routes any method name.
    ...otherMethods.map((method) => HttpRouter.add(method as "GET", path, methodNotAllowed))
  )))
