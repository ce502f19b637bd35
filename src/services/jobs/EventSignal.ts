import * as PgClient from "@effect/sql-pg/PgClient"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { AccountId } from "../../schema/ApiKey.ts"
import { DatabaseConfig } from "../store/Database.ts"

/** An account whose events changed, or `everyone` when wake-ups may have been missed. */
export type Wake = AccountId | typeof everyone
export const everyone = "*"

/** The PostgreSQL channel on which committed events are announced (payload: the account's id). */
export const channel = "job_events"

/**
 * Wake-ups for the readers of event streams in this process: a hint that an account has new events,
 * never the events themselves (the table is the truth, and a reader always reads it). On PostgreSQL
 * every transaction that appends events announces them with `NOTIFY` (delivered on commit, to every
 * process listening on the database); the embedded store and the in-memory stores wake this
 * process's readers directly.
 */
export class EventSignal extends Context.Service<EventSignal, {
  /** Whether appenders must announce their events with `NOTIFY` (PostgreSQL, shared by processes). */
  readonly viaNotify: boolean
  readonly wake: (wake: Wake) => Effect.Effect<void>
  readonly subscribe: Effect.Effect<PubSub.Subscription<Wake>, never, Scope.Scope>
}>()("EventSignal") {}

const make = (viaNotify: boolean) =>
  Effect.map(PubSub.unbounded<Wake>(), (pubsub) =>
    EventSignal.of({
      viaNotify,
      wake: (wake) => PubSub.publish(pubsub, wake).pipe(Effect.asVoid),
      subscribe: PubSub.subscribe(pubsub)
    }))

/**
 * Wake-ups within this process only: the in-memory stores, and the embedded database too (its one
 * backend does not deliver notifications across connections).
 */
export const layerInProcess = Layer.effect(EventSignal)(make(false))

/** A notification's payload; one that is not an account's id ends the listening, which starts again. */
const decodePayload = Schema.decodeUnknownEffect(AccountId)

/**
 * PostgreSQL: `LISTEN` on one connection of the pool, each notification waking its account. A lost
 * connection is listened on again (after 1 s, then at most every 10 s); every start of listening wakes
 * everyone, since notifications sent before it are lost.
 */
const layerListen = Layer.effect(EventSignal)(Effect.gen(function*() {
  const pg = yield* PgClient.PgClient
  const signal = yield* make(true)
  const listen = Effect.scoped(Effect.gen(function*() {
    const notifications = yield* pg.listen(channel)
    yield* signal.wake(everyone)
    yield* Queue.take(notifications).pipe(
      // A payload that names no account wakes no one; the next notification is read as ever.
      Effect.flatMap((notification) => Effect.option(decodePayload(notification.payload))),
      Effect.flatMap(Option.match({ onNone: () => Effect.void, onSome: signal.wake })),
      Effect.forever
    )
  }))
  yield* listen.pipe(
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.interrupt
        : Effect.logWarning("event wake-ups lost; listening again", cause)
    ),
    Effect.repeat(Schedule.min([Schedule.exponential(Duration.seconds(1)), Schedule.spaced(Duration.seconds(10))])),
    Effect.forkScoped
  )
  return signal
}))

/** `layerListen` on PostgreSQL (`DATABASE_URL`), `layerInProcess` on the embedded store. */
export const layer = Layer.unwrap(
  Effect.map(DatabaseConfig, ({ url }) => Option.isSome(url) ? layerListen : layerInProcess)
)
