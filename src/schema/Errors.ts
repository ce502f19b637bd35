import { ErrorReporter, Schema } from "effect"
import { HttpApiSchema } from "effect/http-api"

/**
 * 400: the body is not a well-formed waitlist document. The fault of a client program; a person typing
 * into a form cannot cause it.
 */
export class InvalidJson extends Schema.Error<InvalidJson>("InvalidJson")(
  Schema.Struct({ error: Schema.tag("invalid_json") }).annotate({ identifier: "InvalidJson" }),
  { httpApiStatus: 400, description: "The body is not a well-formed waitlist document." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/** 422: the e-mail value is missing or invalid. */
export class InvalidEmail extends Schema.Error<InvalidEmail>("InvalidEmail")(
  Schema.Struct({ error: Schema.tag("invalid_email") }).annotate({ identifier: "InvalidEmail" }),
  { httpApiStatus: 422, description: "The e-mail value is invalid." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/** How long a client is asked to wait before retrying, in whole seconds (waitlist.md: 1 to 30). */
export const RetryAfterSeconds = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 30 }))

/**
 * 503: the waitlist cannot serve the request (store unreachable, slow or failing, paused by the
 * operator, or shedding load). Its body is `{"error":"unavailable"}`; the retry delay travels in
 * `Retry-After`.
 */
export class Unavailable extends Schema.Error<Unavailable>("Unavailable")({
  retryAfter: RetryAfterSeconds
}, { httpApiStatus: 503 }) {
  override readonly [ErrorReporter.ignore] = true
}

const UnavailableBody = Schema.Struct({ error: Schema.Literal("unavailable") }).annotate({
  identifier: "Unavailable",
  description: "The waitlist cannot serve the request.",
  httpApiStatus: 503
})

const RetryAfterHeader = Schema.NumberFromString.annotate({
  description: "Whole seconds to wait before retrying, 1 to 30."
}).pipe(Schema.decodeTo(RetryAfterSeconds))

/** `Unavailable` on the wire: the contract's body, and the delay in `Retry-After`. */
export const UnavailableResponse = Unavailable.pipe(
  HttpApiSchema.encodeToWithHeaders({
    body: UnavailableBody,
    headers: { "retry-after": RetryAfterHeader }
  }, {
    decode: ({ headers }) => new Unavailable({ retryAfter: headers["retry-after"] }),
    encode: (error) => ({ body: { error: "unavailable" as const }, headers: { "retry-after": error.retryAfter } })
  })
).annotate({ description: "The waitlist cannot serve the request; retry after `Retry-After` seconds." })
