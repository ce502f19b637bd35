import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerError from "effect/http/HttpServerError"
import type { HttpServerRequest } from "effect/http/HttpServerRequest"
import type * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import {
  Forbidden,
  MethodNotAllowed,
  NotFound,
  ServiceUnavailableResponse,
  Unauthorized,
  UnauthorizedResponse
} from "../schema/ApiErrors.ts"
import type { Scope } from "../schema/ApiKey.ts"
import { RequiredScope } from "./Authentication.ts"
import { makeCheck } from "./AuthenticationHttp.ts"
import { JobsApi, PreviewApi } from "./JobsApi.ts"
import * as WireErrors from "./WireErrors.ts"

/**
 * What the router cannot route on a Job API path, answered as the API answers: a method the path does
 * not serve is 405 with `Allow` (as the waitlist's path does); a path the router cannot match although
 * it has an operation's shape (a percent-encoding that does not decode) is checked like any request (401, 403) and then names nothing: 404 `not_found`.
 */

interface Shape {
  readonly path: RegExp
  /** The methods the path serves, each with the scopes that may use it (any one). */
  readonly methods: Record<string, ReadonlyArray<Scope>>
}

/** The Job API's paths, the methods each serves and their scopes, as its definition declares them. */
const shapes: ReadonlyArray<Shape> = (() => {
  const byPath = new Map<string, Shape>()
  HttpApi.reflect(PreviewApi, {
    predicate: ({ group }) => group.identifier === JobsApi.identifier,
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      const shape = byPath.get(endpoint.path) ?? {
        path: new RegExp(`^${endpoint.path.replace(/:[^/]+/g, "[^/]+")}$`),
        methods: {}
      }
      const scope = Context.getOption(mergedAnnotations, RequiredScope)
      shape.methods[endpoint.method] = Option.isNone(scope) ? [] : [scope.value].flat()
      byPath.set(endpoint.path, shape)
    }
  })
  return [...byPath.values()]
})()

const unmatched = new NotFound({ message: "No such resource for this account." })

const bearer = /^Bearer +(\S+) *$/i

export const JobsFallbackLive = HttpRouter.middleware<{ handles: HttpServerError.HttpServerError }>()(
  Effect.gen(function*() {
    const check = yield* makeCheck
    const answer = (request: HttpServerRequest) => Effect.map(respond(request), Option.fromUndefinedOr)
    const respond = (request: HttpServerRequest) =>
      Effect.gen(function*() {
        const end = request.url.search(/[?#]/)
        const path = end === -1 ? request.url : request.url.slice(0, end)
        const shape = shapes.find((shape) => shape.path.test(path))
        if (shape === undefined) return undefined
        const method = request.method === "HEAD" ? "GET" : request.method
        const scopes = shape.methods[method]
        if (scopes === undefined) {
          const allow = Object.keys(shape.methods).sort().join(", ")
          const message = `This path serves ${allow} only.`
          return WireErrors.answer(MethodNotAllowed, new MethodNotAllowed({ message }), { allow })
        }
        const credential = bearer.exec(request.headers.authorization ?? "")?.[1]
        const checked = yield* Effect.result(check(Redacted.make(credential ?? ""), scopes))
        if (checked._tag === "Success") return WireErrors.answer(NotFound, unmatched)
        const failure = checked.failure
        if (failure instanceof Unauthorized) return WireErrors.answerWithHeaders(UnauthorizedResponse, failure)
        if (failure instanceof Forbidden) return WireErrors.answer(Forbidden, failure)
        return WireErrors.answerWithHeaders(ServiceUnavailableResponse, failure)
      })
    const fallback = (
      error: HttpServerError.HttpServerError
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, HttpServerError.HttpServerError> =>
      Effect.flatMap(
        answer(error.reason.request),
        (response) => Option.isSome(response) ? Effect.succeed(response.value) : Effect.fail(error)
      )
    return (httpEffect) =>
      Effect.catch(
        httpEffect,
        (error) =>
          HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound"
            ? fallback(error)
            : Effect.fail(error)
      )
  }),
  { global: true }
)
