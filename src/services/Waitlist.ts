import { Clock, Config, Context, Duration, Effect, Fiber, HashMap, Layer, Ref, Stream } from "effect"
import { SqlClient } from "effect/sql"
import { Unavailable } from "../schema/Errors.ts"
import type { Email } from "../schema/Waitlist.ts"
import { emailKey } from "../schema/Waitlist.ts"
import * as Database from "./Database.ts"
import { DatabaseConfig } from "./Database.ts"
import * as Migrations from "./Migrations.ts"

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

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** PostgreSQL, through whichever `SqlClient` the `Database` layer provides. */
export const layerLive = Layer.effect(Waitlist)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const migrations = yield* Migrations.Migrations
  const { statementTimeout } = yield* DatabaseConfig

  const scope = yield* Effect.scope
  const unavailable = new Unavailable({ retryAfter: retryAfter.storeFailure })
  const timedOut = { message: `no answer within ${Duration.format(statementTimeout)}` }

  // The one place where infrastructure failures become `Unavailable`, logged without the address.
  const toUnavailable = (error: { readonly message: string }) =>
    Effect.logWarning("waitlist store unavailable", error.message).pipe(Effect.andThen(Effect.fail(unavailable)))

  // A whole store operation, waiting for a connection included, is bounded by the statement timeout.
  // The operation runs in a fiber of its own, and the answer does not wait for it to stop: interrupting
  // a query on a hung connection makes the client cancel it and drain the connection, seconds more.
  const guard = <A, E extends { readonly message: string }>(self: Effect.Effect<A, E>) =>
    Effect.forkIn(Effect.andThen(migrations.ready, self), scope).pipe(
      Effect.flatMap((fiber) =>
        Fiber.join(fiber).pipe(
          Effect.timeoutOrElse({
            duration: statementTimeout,
            orElse: () => Effect.andThen(Effect.forkIn(Fiber.interrupt(fiber), scope), Effect.fail(timedOut))
          })
        )
      ),
      Effect.catch(toUnavailable)
    )

  // One statement for a new and a known address, and it writes in both cases, so that both commit
  // and flush alike: the answer cannot reveal membership, by its bytes or by its timing.
  const join = (email: Email) =>
    guard(
      sql`
      INSERT INTO waitlist_members (email_key, email) VALUES (${utf8.encode(emailKey(email))}, ${utf8.encode(email)})
      ON CONFLICT (email_key) DO UPDATE SET last_submitted_at = now()`.raw
    )

  const count = guard(sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM waitlist_members`).pipe(
    Effect.map(([row]) => row?.n ?? 0)
  )

  const members = Stream.unwrap(guard(Effect.succeed(
    sql<{ readonly email: Uint8Array; readonly registered_at: Date }>`
      SELECT email, registered_at FROM waitlist_members ORDER BY id`.stream
  ))).pipe(
    Stream.catch((error) => Stream.fromEffect(toUnavailable(error))),
    Stream.map((row): Member => ({ email: fromUtf8.decode(row.email) as Email, registeredAt: row.registered_at }))
  )

  const ready = guard(sql`SELECT 1`).pipe(Effect.asVoid)

  return { join, count, members, ready }
}))

/**
 * The Live waitlist on its migrated store, with the store's `SqlClient`: as the service opens it
 * (`Database.layer`, the default) or as a command borrows it (`Database.layerCommand`).
 */
export const layerStore = (database: typeof Database.layer = Database.layer) =>
  layerLive.pipe(Layer.provide(Migrations.layer), Layer.provideMerge(database))

/** In memory, with the semantics of `layerLive`: one member per key, first spelling kept, ordered. */
export const layerTest = Layer.effect(Waitlist)(Effect.gen(function*() {
  const store = yield* Ref.make(HashMap.empty<string, Member & { readonly seq: number }>())
  return {
    join: (email) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.update(store, (members) => {
          const key = emailKey(email)
          return HashMap.has(members, key)
            ? members
            : HashMap.set(members, key, { email, registeredAt: new Date(now), seq: HashMap.size(members) })
        })),
    count: Effect.map(Ref.get(store), HashMap.size),
    ready: Effect.void,
    members: Stream.unwrap(Effect.map(Ref.get(store), (members) =>
      Stream.fromIterable(
        Array.from(HashMap.values(members))
          .sort((a, b) => a.seq - b.seq)
          .map(({ email, registeredAt }): Member => ({ email, registeredAt }))
      )))
  }
}))

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
