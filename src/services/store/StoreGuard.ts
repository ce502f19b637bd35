import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Migrator from "effect/sql/Migrator"
import { SqlError } from "effect/sql/SqlError"
import { Unavailable } from "../../schema/Errors.ts"
import { DatabaseConfig } from "./Database.ts"
import * as Migrations from "./Migrations.ts"

/** How long a caller is asked to wait when the store fails. */
export const storeRetryAfter = 5

/**
 * The one place where every store turns infrastructure failures into `Unavailable` (logged, never
 * with the data): every operation first awaits the migrations, and the whole of it, waiting for a
 * connection included, is bounded by the statement timeout (or a shorter `timeout` given with it). The
 * operation runs in a fiber of its own (it keeps the caller's services, an open transaction included),
 * and the answer does not wait for it to stop: interrupting a query on a hung connection makes the
 * client cancel it and drain the connection, seconds more. Typed failures pass through unchanged.
 */
export const make = (name: string, options?: { readonly retryAfter?: number | undefined }) =>
  Effect.gen(function*() {
    const migrations = yield* Migrations.Migrations
    const { statementTimeout } = yield* DatabaseConfig
    const scope = yield* Effect.scope
    const unavailable = new Unavailable({ retryAfter: options?.retryAfter ?? storeRetryAfter })
    const timedOut = new StoreFailure({ message: `no answer within ${Duration.format(statementTimeout)}` })

    const toUnavailable = (error: { readonly message: string }) =>
      Effect.logWarning(`${name} store unavailable`, error.message).pipe(Effect.andThen(Effect.fail(unavailable)))

    // One fiber and one timer per operation: the operation's fiber is watched rather than joined, so
    // that neither the wait nor the timeout takes a fiber of its own (`Effect.timeoutOrElse` of a
    // `Fiber.join` races two more). Every store operation passes here, the waitlist's batches among
    // them (docs/PERFORMANCE.md, "Where a join's CPU went").
    const watch = <A, E>(fiber: Fiber.Fiber<A, E>, timeout: Duration.Duration) =>
      Effect.callback<A, E | StoreFailure>((resume) => {
        const timer = setTimeout(() => {
          stop()
          resume(Effect.fail(timedOut))
          fiber.interruptUnsafe()
        }, Duration.toMillis(timeout))
        const stop = fiber.addObserver((exit) => {
          clearTimeout(timer)
          resume(exit)
        })
        // The caller gone, the operation still runs to its end in the guard's scope.
        return Effect.sync(() => {
          clearTimeout(timer)
          stop()
        })
      })

    return <A, E, R>(
      self: Effect.Effect<A, E, R>,
      timeout: Duration.Duration = statementTimeout
    ): Effect.Effect<A, Exclude<E, SqlError> | Unavailable, R> =>
      Effect.forkIn(Effect.andThen(migrations.ready, self), scope, { startImmediately: true }).pipe(
        Effect.flatMap((fiber) => watch(fiber, timeout)),
        Effect.catch((error): Effect.Effect<never, Exclude<E, SqlError> | Unavailable> =>
          isStoreFailure(error) ? toUnavailable(error) : Effect.fail(error as Exclude<E, SqlError>)
        )
      ) as Effect.Effect<A, Exclude<E, SqlError> | Unavailable, R>
  })

class StoreFailure {
  readonly _tag = "StoreFailure"
  readonly message: string
  constructor(options: { readonly message: string }) {
    this.message = options.message
  }
}

/** What the store itself fails with: SQL and migration errors, and the timeout. */
const isStoreFailure = (error: unknown): error is { readonly message: string } =>
  error instanceof SqlError || error instanceof Migrator.MigrationError || error instanceof StoreFailure
