import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { Forbidden, Unauthorized } from "../schema/ApiErrors.ts"
import type { Scope } from "../schema/ApiKey.ts"
import { Unavailable } from "../schema/Errors.ts"
import { ApiKeys } from "../services/access/ApiKeys.ts"
import { storeRetryAfter } from "../services/store/StoreGuard.ts"
import { Authentication, CurrentPrincipal, RequiredScope } from "./Authentication.ts"

/** `Authentication` checked against the stored API keys. */
const cannotCheck = (retryAfter: number) =>
  new Unavailable({ message: "The service cannot check API keys now; retry later.", retryAfter })

const unauthorized = new Unauthorized({
  message: "A valid API key is required: send it as Authorization: Bearer <API_KEY>."
})

/**
 * The caller of a request with `credential`, allowed any one of `anyOf` (none: any key): 401 without a
 * valid key, 403 without the scope, 503 when the keys cannot be checked.
 */
export const makeCheck = Effect.gen(function*() {
  const keys = yield* ApiKeys
  return (credential: Redacted.Redacted<string>, anyOf: ReadonlyArray<Scope>) =>
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
      if (anyOf.length > 0 && !anyOf.some((name) => principal.value.scopes.has(name))) {
        return yield* Effect.fail(new Forbidden({ message: `This API key lacks the scope ${anyOf.join(" or ")}.` }))
      }
      return principal.value
    })
})

export const AuthenticationLive = Layer.effect(Authentication)(Effect.gen(function*() {
  const check = yield* makeCheck
  return Authentication.of({
    bearer: (httpEffect, { credential, endpoint }) =>
      Effect.gen(function*() {
        const scope = Context.getOption(endpoint.annotations, RequiredScope)
        const anyOf: ReadonlyArray<Scope> = Option.isNone(scope)
          ? []
          : typeof scope.value === "string"
          ? [scope.value]
          : scope.value
        const principal = yield* check(credential, anyOf)
        return yield* Effect.provideService(httpEffect, CurrentPrincipal, principal)
      })
  })
}))
