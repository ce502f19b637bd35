import { Cause, Context, Effect, Layer, Option } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import {
  Forbidden,
  ServiceUnavailable,
  ServiceUnavailableResponse,
  Unauthorized,
  UnauthorizedResponse
} from "../schema/ApiErrors.ts"
import type { Principal, Scope } from "../schema/ApiKey.ts"
import { ApiKeys } from "../services/ApiKeys.ts"
import { storeRetryAfter } from "../services/StoreGuard.ts"

/** The caller of the request being served: set by `Authentication`. */
export class CurrentPrincipal extends Context.Service<CurrentPrincipal, Principal>()("CurrentPrincipal") {}

/** The scope an endpoint needs, as an annotation of the endpoint. */
export class RequiredScope extends Context.Service<RequiredScope, Scope>()("RequiredScope") {}

/**
 * Bearer API keys (`Authorization: Bearer rc_live_...`): 401 `unauthorized` (with
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

const cannotCheck = (retryAfter: number) =>
  new ServiceUnavailable({ message: "The service cannot check API keys now; retry later.", retryAfter })

const unauthorized = new Unauthorized({
  message: "A valid API key is required: send it as Authorization: Bearer <API_KEY>."
})

export const layer = Layer.effect(Authentication)(Effect.gen(function*() {
  const keys = yield* ApiKeys
  return Authentication.of({
    bearer: (httpEffect, { credential, endpoint }) =>
      Effect.gen(function*() {
        const principal = yield* keys.authenticate(credential).pipe(
          Effect.catch((error) => Effect.fail(cannotCheck(error.retryAfter))),
          // A defect is a bug: logged with its cause (never the key), and answered 503 like the rest.
          Effect.catchDefect((defect) =>
            Effect.logError("authentication failed", Cause.die(defect)).pipe(
              Effect.andThen(Effect.fail(cannotCheck(storeRetryAfter)))
            )
          )
        )
        if (Option.isNone(principal)) return yield* Effect.fail(unauthorized)
        const scope = Context.getOption(endpoint.annotations, RequiredScope)
        if (Option.isSome(scope) && !principal.value.scopes.has(scope.value)) {
          return yield* Effect.fail(new Forbidden({ message: `This API key lacks the scope ${scope.value}.` }))
        }
        return yield* Effect.provideService(httpEffect, CurrentPrincipal, principal.value)
      })
  })
}))
