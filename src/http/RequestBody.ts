import * as ByteSize from "effect/ByteSize"
import * as Effect from "effect/Effect"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import type { HttpServerRequest } from "effect/http/HttpServerRequest"

/** Request bodies as both APIs read them: JSON only, strict UTF-8, and a size limit checked before reading. */

/** `application/json`, with any parameters, in any case. */
export const isJsonType = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  const end = contentType.indexOf(";")
  return (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase() === "application/json"
}

/** Whether the request's body is declared `application/json` (see `isJsonType`). */
export const isJson = (request: HttpServerRequest): boolean => isJsonType(request.headers["content-type"])

/** How large a body may be, as the platform's reader takes it and in bytes (converted once, not per request). */
export interface Limit {
  readonly size: ByteSize.ByteSize
  readonly bytes: number
}

export const limit = (size: ByteSize.ByteSize): Limit => ({ size, bytes: ByteSize.toNumberUnsafe(size) })

/** Whether the request declares (`Content-Length`) a body larger than the limit. */
export const declaresMoreThan = (request: HttpServerRequest, limit: Limit): boolean => {
  const declared = request.headers["content-length"]
  return declared !== undefined && Number(declared) > limit.bytes
}

/**
 * The body's bytes, read at most to `limit`: `undefined` when it is larger. The platform memoises the
 * read, so that schema decoding after this reads the same bytes again without touching the socket.
 */
export const read = (request: HttpServerRequest, limit: Limit) =>
  declaresMoreThan(request, limit) ? Effect.succeed(undefined) : request.arrayBuffer.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, limit.size),
    Effect.map((buffer): Uint8Array | undefined => new Uint8Array(buffer)),
    Effect.orElseSucceed(() => undefined)
  )
