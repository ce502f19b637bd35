import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { request } from "node:http"
import type { IncomingHttpHeaders } from "node:http"
import * as RequestLog from "../../src/http/RequestLog.ts"
import { HttpLive, nodeServer } from "../../src/http/Server.ts"
import type { Waitlist } from "../../src/services/waitlist/Waitlist.ts"
import { isJobPath, problemsOf } from "./OpenApiCheck.ts"

/**
 * The service's real HTTP stack on an ephemeral port, over the given waitlist; the request log (tested
 * on its own) goes to `requestLog` when given, and is off otherwise.
 */
export const serverWith = <E, R>(waitlist: Layer.Layer<Waitlist, E, R>, requestLog?: (chunk: string) => void) =>
  HttpLive.pipe(
    Layer.provideMerge(Layer.unwrap(Effect.map(
      requestLog === undefined ? Effect.succeed(undefined) : RequestLog.make(requestLog),
      (log) => nodeServer({ host: "127.0.0.1", port: 0 }, log)
    ))),
    Layer.provide(waitlist)
  )

export const baseUrl = Effect.map(HttpServer.HttpServer, (server) => {
  const address = server.address
  return address._tag === "UnixPathAddress" ? "http://unix" : `http://127.0.0.1:${address.port}`
})

export interface RawResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface RawRequest {
  readonly method?: string
  readonly path?: string
  readonly headers?: Record<string, string | number>
  /** Sent with a Content-Length; `chunks` instead sends the body chunked. */
  readonly body?: string | Uint8Array
  readonly chunks?: ReadonlyArray<string | Uint8Array>
}

/**
 * One request on a new connection, exactly as given; the answer with its raw body. An answer of the Job
 * API that breaks the published OpenAPI document fails the test (`OpenApiCheck`); a server with the
 * preview off answers those paths with a bare 404, which no document describes.
 */
export const send = (url: string, options: RawRequest = {}): Effect.Effect<RawResponse> =>
  Effect.flatMap(exchange(url, options), (response) => {
    const method = options.method ?? "POST"
    const path = options.path ?? "/v1/waitlist"
    if (!isJobPath(path) || (response.status === 404 && response.headers["content-type"] === undefined)) {
      return Effect.succeed(response)
    }
    // The path as it went out: a URL's dot segments are resolved before it is sent.
    const sent = new URL(url + path)
    const problems = problemsOf(method, sent.pathname + sent.search, response)
    return problems.length === 0
      ? Effect.succeed(response)
      : Effect.die(new Error(`the answer breaks the OpenAPI document:\n${problems.join("\n")}`))
  })

const exchange = (url: string, options: RawRequest): Effect.Effect<RawResponse> =>
  Effect.callback<RawResponse>((resume) => {
    const target = new URL(url + (options.path ?? "/v1/waitlist"))
    const req = request(target, { method: options.method ?? "POST", headers: options.headers, agent: false }, (res) => {
      const parts: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => parts.push(chunk))
      res.on("end", () =>
        resume(Effect.succeed({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(parts).toString("utf8")
        })))
      res.on("error", (error) => resume(Effect.die(error)))
    })
    req.on("error", (error) => resume(Effect.die(error)))
    if (options.chunks !== undefined) {
      for (const chunk of options.chunks) req.write(chunk)
      req.end()
    } else {
      req.end(options.body)
    }
  })

/** A JSON document posted as the landing page posts it. */
export const postJson = (url: string, document: unknown, headers: Record<string, string> = {}) =>
  send(url, { headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(document) })

export const join = (url: string, email: string) => postJson(url, { email, source: "landing" })

/** Headers that must not differ between two answers, `Date` aside. */
export const comparableHeaders = (headers: IncomingHttpHeaders) => {
  const { date: _date, ...rest } = headers
  return rest
}
