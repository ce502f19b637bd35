import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
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
 * client cancel it and drain the connection, seconds more. A row that does not read as the code
 * expects is a defect (`UnreadableRow`): no retry mends it. Typed failures pass through unchanged.
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
    ): Effect.Effect<A, Exclude<E, SqlError | Unreadable> | Unavailable, R> =>
      Effect.forkIn(Effect.andThen(migrations.ready, self), scope, { startImmediately: true }).pipe(
        Effect.flatMap((fiber) => watch(fiber, timeout)),
        Effect.catch((error): Effect.Effect<never, Exclude<E, SqlError | Unreadable> | Unavailable> =>
          isStoreFailure(error)
            ? toUnavailable(error)
            : isUnreadable(error)
            ? Effect.die(new UnreadableRow(name, error))
            : Effect.fail(error as Exclude<E, SqlError | Unreadable>)
        )
      ) as Effect.Effect<A, Exclude<E, SqlError | Unreadable> | Unavailable, R>
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

/**
 * How a read of rows (`SqlSchema`) fails when the store holds what this code does not read: a row that
 * does not decode, or none from a statement that always answers one.
 */
export type Unreadable = Schema.SchemaError | Cause.NoSuchElementError

const isUnreadable = (error: unknown): error is Unreadable =>
  Schema.isSchemaError(error) || Cause.isNoSuchElementError(error)

/**
 * A row the store holds that this code cannot read: corrupt, or written by no version of the service.
 * A defect of the store, not a failure of the moment: it is not answered as one (with a retry that
 * cannot help), but dies, to be logged with its cause and answered 503 by the caller's catch-all
 * (the Job API's `Guarded`). The message names the place in the row, never the data.
 */
export class UnreadableRow extends Error {
  override readonly name = "UnreadableRow"
  constructor(store: string, error: Unreadable) {
    super(
      Schema.isSchemaError(error)
        ? `a row of the ${store} store does not read as this code expects: ${error.message}`
        : `a statement of the ${store} store answered no row where it always answers one`
    )
  }
}
