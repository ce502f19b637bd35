import * as ErrorReporter from "effect/ErrorReporter"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"

/**
 * 400: the body is not a well-formed document (for the waitlist, not a well-formed join document; for
 * the Job API, not one JSON document). The fault of a client program; a person typing into a form
 * cannot cause it. On the wire as `InvalidJsonResponse` (the waitlist: no message) or
 * `InvalidJsonBody` (the Job API: with one).
 */
export class InvalidJson extends Schema.Error<InvalidJson>("InvalidJson")({
  message: Schema.optionalKey(Schema.String)
}, { httpApiStatus: 400 }) {
  override readonly [ErrorReporter.ignore] = true
}

/** `InvalidJson` as the waitlist sends it: `{"error":"invalid_json"}`. */
export const InvalidJsonResponse = Schema.Struct({ error: Schema.Literal("invalid_json") }).annotate({
  identifier: "InvalidJson"
}).pipe(
  Schema.decodeTo(
    Schema.toType(InvalidJson),
    SchemaTransformation.transform({
      decode: () => new InvalidJson({}),
      encode: () => ({ error: "invalid_json" as const })
    })
  )
).annotate({ httpApiStatus: 400, description: "The body is not a well-formed waitlist document." })

/** 422: the e-mail value is missing or invalid. */
export class InvalidEmail extends Schema.Error<InvalidEmail>("InvalidEmail")(
  Schema.Struct({ error: Schema.tag("invalid_email") }).annotate({ identifier: "InvalidEmail" }),
  { httpApiStatus: 422, description: "The e-mail value is invalid." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/** How long a client is asked to wait before retrying, in whole seconds (docs/API.md, "Around the operation": 1 to 30). */
export const RetryAfterSeconds = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 30 }))

/**
 * 503: the service cannot serve the request (store unreachable, slow or failing, paused by the
 * operator, or shedding load). The retry delay travels in `Retry-After`. The waitlist's body is
 * `{"error":"unavailable"}` (`UnavailableResponse`); the Job API's adds a message
 * (`ServiceUnavailableResponse`), this one's when it has one.
 */
export class Unavailable extends Schema.Error<Unavailable>("Unavailable")({
  retryAfter: RetryAfterSeconds,
  message: Schema.optionalKey(Schema.String)
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
