import * as ByteSize from "effect/ByteSize"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import { HttpServerRequest } from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { IdempotencyKeyInUseBody, IdempotencyKeyRequired, InvalidRequest } from "../schema/ApiErrors.ts"
import { InvalidJson, Unavailable } from "../schema/Errors.ts"
import { describeIssue } from "../schema/Job.ts"
import { parseJsonBytes, unrepresentable } from "../schema/Json.ts"
import type { StoredAnswer } from "../services/access/Idempotency.ts"
import { Idempotency, KeyInUse } from "../services/access/Idempotency.ts"
import { storeRetryAfter } from "../services/store/StoreGuard.ts"
import { canonicalJson } from "../services/text/CanonicalJson.ts"
import { sha256Hex } from "../services/text/Sha256.ts"
import { CurrentPrincipal } from "./Authentication.ts"
import { AcceptsEmptyBody, Guarded, Idempotent, NoQuery, RequestDecoding } from "./JobsMiddleware.ts"
import * as RequestBody from "./RequestBody.ts"
import { answer, answerWireError, wire } from "./WireErrors.ts"

/** The checks of `JobsMiddleware.ts`. */

/** Bodies larger than this are not read: a request holds at most 10,000 characters and its constraints. */
const maxBody = RequestBody.limit(ByteSize.kibibytes(256))

export const RequestDecodingLive = HttpApiMiddleware.layerSchemaErrorTransform(RequestDecoding, (error) => {
  switch (error.kind) {
    case "Params":
    case "Headers":
    case "Query":
    case "Payload":
      return Effect.fail(new InvalidRequest({ message: describeIssue(error.cause.issue) }))
    default:
      // A response that does not encode is a bug of ours, not of the request.
      return Effect.die(error)
  }
})

export const NoQueryLive = Layer.succeed(NoQuery)((httpEffect, { endpoint }) =>
  endpoint.query !== undefined ? httpEffect : Effect.gen(function*() {
    const request = yield* HttpServerRequest
    const start = request.url.indexOf("?")
    if (start === -1 || start === request.url.length - 1) return yield* httpEffect
    const [name = ""] = request.url.slice(start + 1).split(/[=&]/, 1)
    return yield* Effect.fail(
      new InvalidRequest({
        message: `${safeDecode(name)} is not allowed here: this operation takes no query parameter.`
      })
    )
  })
)

const safeDecode = (text: string) => {
  try {
    return decodeURIComponent(text.replaceAll("+", " "))
  } catch {
    return text
  }
}

export const GuardedLive = Layer.succeed(Guarded)((httpEffect, { endpoint }) =>
  Effect.catchDefect(httpEffect, (defect) =>
    Effect.logError(`${endpoint.identifier} failed`, Cause.die(defect)).pipe(
      Effect.andThen(Effect.fail(new Unavailable({ retryAfter: storeRetryAfter })))
    ))
)

/** The method, the path as sent, and the SHA-256 of the body's JCS form ("" for no body). */
export const fingerprintOf = (method: string, path: string, document: unknown) =>
  sha256Hex(`${method} ${path}\n${document === undefined ? "" : sha256Hex(canonicalJson(document))}`)

const pathOf = (request: HttpServerRequest) => {
  const end = request.url.indexOf("?")
  return end === -1 ? request.url : request.url.slice(0, end)
}

/** Visible ASCII, 1 to 255 characters. */
const keyPattern = /^[\x21-\x7e]{1,255}$/

const keyRequired = new IdempotencyKeyRequired({
  message: "Send an Idempotency-Key header of 1 to 255 visible ASCII characters, unique to this operation."
})
const notJson = new InvalidJson({ message: "The body is not a JSON document (UTF-8, application/json)." })
const tooLarge = new InvalidJson({
  message: `The body is larger than ${maxBody.bytes} bytes.`
})

const utf8 = new TextDecoder()

/** An answer as the client received it, to be stored and replayed byte for byte. */
const storedOf = (response: HttpServerResponse.HttpServerResponse): StoredAnswer => {
  const body = response.body
  return {
    status: response.status,
    headers: { ...response.headers },
    body: body._tag === "Uint8Array" ? utf8.decode(body.body) : body._tag === "Raw" ? String(body.body) : ""
  }
}

/**
 * 409 `idempotency_key_in_use` as declared, with the `Retry-After` its declared body cannot carry: an
 * error response with headers may not share its status with the 409s of an endpoint's own errors.
 */
const inUse = (error: KeyInUse) =>
  answer(IdempotencyKeyInUseBody, { error: "idempotency_key_in_use", message: error.message }, {
    "retry-after": String(error.retryAfter)
  })

const respond = (stored: StoredAnswer, replayed: boolean) =>
  HttpServerResponse.text(stored.body, {
    status: stored.status,
    contentType: "application/json",
    headers: replayed ? { ...stored.headers, "idempotent-replayed": "true" } : stored.headers
  })

/**
 * The key, then the body as JSON, then the claim; then the operation (decoding included, so that a
 * 422 is stored like any other 4xx), whose answer is stored with its effects. A 503 or a defect is not
 * stored: the claim is released and a retry runs the operation again.
 */
export const IdempotentLive = Layer.effect(Idempotent)(Effect.gen(function*() {
  const idempotency = yield* Idempotency
  return (httpEffect, { endpoint }) =>
    Effect.gen(function*() {
      const principal = yield* CurrentPrincipal
      const request = yield* HttpServerRequest
      const key = request.headers["idempotency-key"]
      if (key === undefined || !keyPattern.test(key)) return yield* Effect.fail(keyRequired)
      const bytes = yield* RequestBody.read(request, maxBody)
      if (bytes === undefined) return yield* Effect.fail(tooLarge)
      const document = bytes.length === 0
        ? Context.get(endpoint.annotations, AcceptsEmptyBody) ? Result.succeed(undefined) : Result.fail(undefined)
        : RequestBody.isJson(request)
        ? parseJsonBytes(bytes)
        : Result.fail(undefined)
      if (Result.isFailure(document)) return yield* Effect.fail(notJson)
      // Refused before the key is claimed: a request that cannot be fingerprinted is not stored.
      const unusable = unrepresentable(document.success)
      if (unusable !== undefined) return yield* Effect.fail(new InvalidRequest({ message: unusable }))
      const claimed = yield* Effect.result(wire(
        idempotency.claim(principal.accountId, key, fingerprintOf(request.method, pathOf(request), document.success))
      ))
      if (Result.isFailure(claimed)) {
        const failure = claimed.failure
        return failure instanceof KeyInUse ? inUse(failure) : yield* Effect.fail(failure)
      }
      if (claimed.success._tag === "Replay") return respond(claimed.success.answer, true)
      const operation = httpEffect.pipe(
        Effect.map(storedOf),
        Effect.catch((error) => Effect.map(answerWireError(error), storedOf))
      )
      return yield* idempotency.complete(claimed.success.claim, operation).pipe(
        Effect.map((stored) => respond(stored, false)),
        Effect.catchTag("KeyInUse", (error) => Effect.succeed(inUse(error)))
      )
    })
}))
