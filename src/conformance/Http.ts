import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpBody from "effect/http/HttpBody"
import * as HttpClient from "effect/http/HttpClient"
import type { HttpClientError } from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type { HttpMethod } from "effect/http/HttpMethod"
import * as Stream from "effect/Stream"
import { Mismatch } from "./Mismatch.ts"

/** An answer as it came: header names in lower case, the body as bytes and as UTF-8 text. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly bytes: Uint8Array
}

/** A request exactly as given: no header is added but those HTTP itself needs (Host, Content-Length). */
export interface Call {
  readonly method?: HttpMethod | undefined
  readonly path: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly body?: string | Uint8Array | undefined
}

const request = (baseUrl: string, call: Call) => {
  const bytes = typeof call.body === "string" ? Buffer.from(call.body, "utf8") : call.body
  return HttpClientRequest.make(call.method ?? "GET")(`${baseUrl}${call.path}`).pipe(
    bytes === undefined ? (self) => self : HttpClientRequest.setBody(
      HttpBody.raw(bytes, { contentLength: bytes.length })
    ),
    // After the body, which would otherwise drop a content-type it does not carry itself.
    HttpClientRequest.setHeaders(call.headers ?? {})
  )
}

const unanswered = (call: Call) => (error: HttpClientError) =>
  new Mismatch({
    expected: `an answer to ${call.method ?? "GET"} ${call.path}`,
    got: error.reason._tag === "TransportError"
      ? `no answer (${String(error.reason.cause ?? error.message)})`
      : error.message
  })

const headersOf = (headers: Readonly<Record<string, string>>) => Object.fromEntries(Object.entries(headers))

export const send = (baseUrl: string, call: Call): Effect.Effect<Answer, Mismatch, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(request(baseUrl, call))
    const bytes = new Uint8Array(yield* response.arrayBuffer)
    return {
      status: response.status,
      headers: headersOf(response.headers),
      body: Buffer.from(bytes).toString("utf8"),
      bytes
    }
  }).pipe(Effect.mapError(unanswered(call)))

/**
 * An event stream read as text until `enough` holds of what has arrived, or for `within` at most; the
 * connection is then closed. Any answer other than a stream is read whole.
 */
export const readStream = (
  baseUrl: string,
  call: Call,
  enough: (text: string) => boolean,
  within: Duration.Input
): Effect.Effect<Answer, Mismatch, HttpClient.HttpClient> =>
  Effect.scoped(Effect.gen(function*() {
    const client = HttpClient.withScope(yield* HttpClient.HttpClient)
    const response = yield* client.execute(request(baseUrl, call))
    const headers = headersOf(response.headers)
    let text = ""
    if (response.status === 200 && (headers["content-type"] ?? "").startsWith("text/event-stream")) {
      yield* response.stream.pipe(
        Stream.decodeText,
        Stream.takeUntil((chunk) => {
          text += chunk
          return enough(text)
        }),
        Stream.runDrain,
        Effect.timeoutOrElse({ duration: Duration.fromInputUnsafe(within), orElse: () => Effect.void })
      )
    } else {
      text = yield* response.text
    }
    return { status: response.status, headers, body: text, bytes: Buffer.from(text, "utf8") }
  })).pipe(Effect.mapError(unanswered(call)))
