import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"
import { Unavailable } from "../../schema/Errors.ts"
import type { Email } from "../../schema/Waitlist.ts"

export interface Member {
  readonly email: Email
  readonly registeredAt: Date
}

/**
 * The early-access waitlist. Membership is case-insensitive and keeps the first spelling; joining is
 * idempotent and answers the same whether the address was known or not.
 */
export class Waitlist extends Context.Service<Waitlist, {
  readonly join: (email: Email) => Effect.Effect<void, Unavailable>
  readonly count: Effect.Effect<number, Unavailable>
  /** Every member in registration order, with the exact spelling first registered. */
  readonly members: Stream.Stream<Member, Unavailable>
  /** Succeeds when the store can serve: reachable, migrated, answering within the timeout. */
  readonly ready: Effect.Effect<void, Unavailable>
}>()("Waitlist") {}

/** Retry delays sent with `unavailable`: a failing store is usually back soon, a pause lasts. */
export const retryAfter = { storeFailure: 5, paused: 30 } as const

/**
 * The operator's pause (`WAITLIST_PAUSED=true`): joining answers `unavailable` until it is lifted,
 * whatever store is underneath; reading the list is unaffected.
 */
export const withPause = <E, R>(store: Layer.Layer<Waitlist, E, R>) =>
  Layer.effect(Waitlist)(Effect.gen(function*() {
    const paused = yield* Config.Boolean("WAITLIST_PAUSED").pipe(Config.withDefault(false))
    const waitlist = yield* Waitlist
    if (!paused) return waitlist
    const unavailable = new Unavailable({ retryAfter: retryAfter.paused })
    return { ...waitlist, join: () => Effect.fail(unavailable) }
  })).pipe(Layer.provide(store))
