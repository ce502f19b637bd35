import * as ErrorReporter from "effect/ErrorReporter"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import { InvalidJson, RetryAfterSeconds, Unavailable } from "./Errors.ts"

/**
 * The errors of the authenticated API (docs/API.md, "Which error wins"): `{"error": code, "message": text}`, one
 * status per code. The message is for a person; programs branch on `error`.
 */
export const ErrorBody = Schema.Struct({ error: Schema.String, message: Schema.String })
export type ErrorBody = typeof ErrorBody.Type

const body = <Code extends string>(code: Code, identifier: string) =>
  Schema.Struct({ error: Schema.tag(code), message: Schema.String }).annotate({ identifier })

/** `InvalidJson` as the Job API sends it: `{"error":"invalid_json","message"}`. */
export const InvalidJsonBody = body("invalid_json", "InvalidJsonBody").pipe(
  Schema.decodeTo(
    Schema.toType(InvalidJson),
    SchemaTransformation.transform({
      decode: ({ message }) => new InvalidJson({ message }),
      encode: (error) => ({
        error: "invalid_json" as const,
        message: error.message || "The body is not a JSON document."
      })
    })
  )
).annotate({ httpApiStatus: 400, description: "The body is not a JSON document." })

/** 400: a POST without a usable `Idempotency-Key` (1 to 255 visible ASCII characters). */
export class IdempotencyKeyRequired extends Schema.Error<IdempotencyKeyRequired>("IdempotencyKeyRequired")(
  body("idempotency_key_required", "IdempotencyKeyRequired"),
  {
    httpApiStatus: 400,
    description: "The Idempotency-Key header is missing or is not 1 to 255 visible ASCII characters."
  }
) {
  override readonly [ErrorReporter.ignore] = true
}

/** 401: no bearer key, or one that is unknown or revoked. Sent with `WWW-Authenticate: Bearer`. */
export class Unauthorized extends Schema.Error<Unauthorized>("Unauthorized")(
  body("unauthorized", "Unauthorized"),
  { httpApiStatus: 401 }
) {
  override readonly [ErrorReporter.ignore] = true
}

export const UnauthorizedResponse = Unauthorized.pipe(
  HttpApiSchema.encodeToWithHeaders({
    body: body("unauthorized", "Unauthorized").annotate({
      description: "No valid API key was given.",
      httpApiStatus: 401
    }),
    headers: { "www-authenticate": Schema.Literal("Bearer") }
  }, {
    decode: ({ body }) => new Unauthorized({ message: body.message }),
    encode: (error) => ({
      body: { error: "unauthorized" as const, message: error.message },
      headers: { "www-authenticate": "Bearer" as const }
    })
  })
)

/** 403: the key is valid but lacks the scope the operation needs. */
export class Forbidden extends Schema.Error<Forbidden>("Forbidden")(
  body("forbidden", "Forbidden"),
  { httpApiStatus: 403, description: "The API key lacks the scope this operation needs." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/** 404: no such resource for this account (another account's Job is 404 too, never 403). */
export class NotFound extends Schema.Error<NotFound>("NotFound")(
  body("not_found", "NotFound"),
  { httpApiStatus: 404, description: "No such resource for this account." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/**
 * 405: a method a Job API path does not serve, sent with `Allow` (docs/API.md: as on the waitlist). No
 * operation declares it: the router's fallback answers it.
 */
export class MethodNotAllowed extends Schema.Error<MethodNotAllowed>("MethodNotAllowed")(
  body("method_not_allowed", "MethodNotAllowed"),
  { httpApiStatus: 405, description: "The path does not serve this method; Allow lists those it does." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/** 409: the `jobRevision` sent is not the Job's current revision. */
export class RevisionMismatch extends Schema.Error<RevisionMismatch>("RevisionMismatch")(
  body("revision_mismatch", "RevisionMismatch"),
  { httpApiStatus: 409, description: "The jobRevision sent is not the Job's current revision." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/** 409: the Job's state does not allow the operation (a terminal Job, no open question, ...). */
export class InvalidState extends Schema.Error<InvalidState>("InvalidState")(
  body("invalid_state", "InvalidState"),
  { httpApiStatus: 409, description: "The Job's state does not allow this operation." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/** 409: the `proposalHash` sent is not the Job's open proposal. */
export class ProposalMismatch extends Schema.Error<ProposalMismatch>("ProposalMismatch")(
  body("proposal_mismatch", "ProposalMismatch"),
  { httpApiStatus: 409, description: "The proposalHash sent is not the Job's open proposal." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/** 409: the proposal was not decided before its `expiresAt`. */
export class ProposalExpired extends Schema.Error<ProposalExpired>("ProposalExpired")(
  body("proposal_expired", "ProposalExpired"),
  { httpApiStatus: 409, description: "The proposal expired before it was decided; the Job plans again." }
) {
  override readonly [ErrorReporter.ignore] = true
}

const retryAfterHeader = Schema.NumberFromString.annotate({
  description: "Whole seconds to wait before retrying."
}).pipe(Schema.decodeTo(RetryAfterSeconds))

/**
 * 409 `idempotency_key_in_use`, sent with `Retry-After`, as the OpenAPI document shows it: a 409
 * shares its status with `invalid_state` and `revision_mismatch`, and an HttpApi response with headers
 * cannot share one, so `Idempotent` writes this answer itself and its `Retry-After` is described
 * rather than declared.
 */
export const IdempotencyKeyInUseBody = body("idempotency_key_in_use", "IdempotencyKeyInUse").annotate({
  description: "A request with this Idempotency-Key is in progress; retry after the seconds in Retry-After.",
  httpApiStatus: 409
})

/** 410: the events after the cursor are past retention (`EVENTS_RETENTION`): resume from a newer one. */
export class CursorExpired extends Schema.Error<CursorExpired>("CursorExpired")(
  body("cursor_expired", "CursorExpired"),
  { httpApiStatus: 410, description: "Events after this cursor are past retention; start again from a newer one." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/** 422: the document is JSON but not a valid request (a message says what is wrong). */
export class InvalidRequest extends Schema.Error<InvalidRequest>("InvalidRequest")(
  body("invalid_request", "InvalidRequest"),
  { httpApiStatus: 422, description: "The request is JSON but not valid; the message says why." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/** 422: the `Idempotency-Key` was used before for a different request. */
export class IdempotencyKeyReused extends Schema.Error<IdempotencyKeyReused>("IdempotencyKeyReused")(
  body("idempotency_key_reused", "IdempotencyKeyReused"),
  { httpApiStatus: 422, description: "The Idempotency-Key was used before for a different request." }
) {
  override readonly [ErrorReporter.ignore] = true
}

/**
 * 429: the account already holds as many open event streams on this server process as it may
 * (`EVENTS_MAX_STREAMS_PER_ACCOUNT`): close one, or read JSON pages.
 */
export class TooManyStreams extends Schema.Error<TooManyStreams>("TooManyStreams")(
  body("too_many_streams", "TooManyStreams"),
  {
    httpApiStatus: 429,
    description: "The account holds as many open event streams as it may; close one, or read JSON pages."
  }
) {
  override readonly [ErrorReporter.ignore] = true
}

const unavailableMessage = "The service cannot serve the request now; retry later."

/** `Unavailable` as the Job API sends it: `{"error":"unavailable","message"}`, with `Retry-After`. */
export const ServiceUnavailableResponse = Unavailable.pipe(
  HttpApiSchema.encodeToWithHeaders({
    body: body("unavailable", "ServiceUnavailable").annotate({
      description: "The service cannot serve the request now; retry after Retry-After seconds.",
      httpApiStatus: 503
    }),
    headers: { "retry-after": retryAfterHeader }
  }, {
    decode: ({ body, headers }) => new Unavailable({ message: body.message, retryAfter: headers["retry-after"] }),
    encode: (error) => ({
      body: { error: "unavailable" as const, message: error.message || unavailableMessage },
      headers: { "retry-after": error.retryAfter }
    })
  })
)
