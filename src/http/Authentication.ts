import * as Context from "effect/Context"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import { Forbidden, ServiceUnavailableResponse, UnauthorizedResponse } from "../schema/ApiErrors.ts"
import type { Principal, Scope } from "../schema/ApiKey.ts"

/** The caller of the request being served: set by `Authentication`. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("CurrentPrincipal") {}

/** The scope an endpoint needs (or, given several, any one of them), as an annotation of the endpoint. */
export class RequiredScope extends Context.Service<RequiredScope, Scope | ReadonlyArray<Scope>>()("RequiredScope") {}

/**
 * Bearer API keys (`Authorization: Bearer rc_live_...`), as the API definition declares them (the
 * checks are `AuthenticationHttp.ts`, so that the definition, and clients derived from it, carry no
 * server code): 401 `unauthorized` (with
 * `WWW-Authenticate: Bearer`) without a valid, unrevoked key; 403 `forbidden` when the key lacks the
 * endpoint's `RequiredScope`. It runs before anything else about the request is looked at. The key is
 * never logged: it travels `Redacted`.
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, { provides: CurrentPrincipal }>()(
  "Authentication",
  {
    security: { bearer: HttpApiSecurity.bearer },
    error: [UnauthorizedResponse, Forbidden, ServiceUnavailableResponse]
  }
) {}
