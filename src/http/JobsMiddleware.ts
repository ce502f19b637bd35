import * as Context from "effect/Context"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import {
  IdempotencyKeyInUseBody,
  IdempotencyKeyRequired,
  IdempotencyKeyReused,
  InvalidJsonBody,
  InvalidRequest,
  ServiceUnavailableResponse
} from "../schema/ApiErrors.ts"
import type { CurrentPrincipal } from "./Authentication.ts"

/**
 * The Job API's middleware, as the definition declares it (the checks are `JobsMiddlewareHttp.ts`, so
 * that clients derived from the definition carry no server code). On an endpoint they run outermost
 * first: `Authentication` (401, 403), `Guarded`, `Idempotent` (POSTs), `RequestDecoding`, then the
 * handler: the order of docs/API.md, "Which error wins".
 */

/**
 * A request whose path, query, headers or body does not decode: 422 `invalid_request`, with a message
 * that names the place. (Path parameters are names to look up, never refused here: one that cannot
 * name anything is 404, as an unknown one is.)
 */
export class RequestDecoding extends HttpApiMiddleware.Service<RequestDecoding>()("RequestDecoding", {
  error: InvalidRequest
}) {}

/**
 * A POST's `Idempotency-Key` (docs/API.md, "Idempotency"): 400 without a usable key, 400 `invalid_json`
 * for a body that is not one JSON document, then the key's claim (a replay, 409 in use, 422 reused);
 * the operation's answer, 2xx or 4xx, is stored with its effects.
 */
export class Idempotent extends HttpApiMiddleware.Service<Idempotent, { requires: CurrentPrincipal }>()(
  "Idempotent",
  {
    error: [
      IdempotencyKeyRequired,
      InvalidJsonBody,
      InvalidRequest,
      IdempotencyKeyInUseBody,
      IdempotencyKeyReused,
      ServiceUnavailableResponse
    ]
  }
) {}

/**
 * An operation that names no query parameter refuses any (422 `invalid_request`); the others refuse
 * those they do not name while decoding (`HttpApi.QueryParseOptions`).
 */
export class NoQuery extends HttpApiMiddleware.Service<NoQuery>()("NoQuery", {
  error: InvalidRequest
}) {}

/** A defect is a bug, never an answer: it is logged with its cause and answered 503 (never 500). */
export class Guarded extends HttpApiMiddleware.Service<Guarded>()("Guarded", {
  error: ServiceUnavailableResponse
}) {}

/** Whether a POST may come without a body (a cancellation): otherwise an empty body is not JSON (400). */
export const AcceptsEmptyBody = Context.Reference<boolean>("AcceptsEmptyBody", { defaultValue: () => false })
