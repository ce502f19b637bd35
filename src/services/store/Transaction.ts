import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as SqlClient from "effect/sql/SqlClient"

/**
 * Runs `effect` in the caller's transaction when there is one (an Idempotency-Key's, which stores the
 * answer with the change), otherwise in one of its own. Joined rather than nested: a savepoint (two more
 * round trips) would buy nothing, since a change fails without writing or fails the caller's
 * transaction with it.
 */
export const joined = (sql: SqlClient.SqlClient) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.serviceOption(sql.transactionService),
    (current) => Option.isSome(current) ? effect : sql.withTransaction(effect)
  )
