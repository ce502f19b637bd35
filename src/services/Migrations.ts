import { Context, Effect, Layer, Schedule, Semaphore } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"

/**
 * Members are kept as UTF-8 bytes (`bytea`): the contract accepts any well-formed text, U+0000
 * included, which a PostgreSQL `text` column cannot hold. `email_key` is the lower-cased address,
 * the identity of a member; `email` is the spelling of the first registration.
 * `last_submitted_at` makes a repeated registration write as much as a new one (waitlist.md).
 */
const createWaitlistMembers = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE waitlist_members (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      email_key bytea NOT NULL UNIQUE,
      email bytea NOT NULL,
      registered_at timestamptz NOT NULL DEFAULT now(),
      last_submitted_at timestamptz NOT NULL DEFAULT now()
    )`
})

/**
 * Accounts own API keys (and, through them, Jobs). A key is stored as the SHA-256 of its text, never
 * the text; `scopes` is space-separated.
 */
const createAccountsAndApiKeys = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE accounts (
      id text PRIMARY KEY,
      name text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      account_id text NOT NULL REFERENCES accounts (id),
      key_hash bytea NOT NULL UNIQUE,
      scopes text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    )`
})

export const migrations = Migrator.fromRecord({
  "0001_waitlist_members": createWaitlistMembers,
  "0002_accounts_and_api_keys": createAccountsAndApiKeys
})

/** Applies the pending migrations; answers those it applied. */
export const run = Migrator.make({})({ loader: migrations })

/**
 * The schema is migrated before the store is first used, but the service must start while the
 * database is down: every store operation first awaits `ready`, which is free once the migration has
 * succeeded and tries again otherwise.
 */
export class Migrations extends Context.Service<Migrations, {
  readonly ready: Effect.Effect<void, SqlError | Migrator.MigrationError>
}>()("Migrations") {}

export const layer = Layer.effect(Migrations)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const lock = yield* Semaphore.make(1)
  let done = false
  const migrate = Effect.suspend(() =>
    done ? Effect.void : run.pipe(
      Effect.provideService(SqlClient.SqlClient, sql),
      Effect.andThen(Effect.sync(() => {
        done = true
      }))
    )
  ).pipe(lock.withPermits(1))
  return { ready: Effect.suspend(() => done ? Effect.void : migrate) }
}))

/** The service migrates at start, in the background and until it succeeds, so it starts while the database is down. */
export const migrateOnStart = Layer.effectDiscard(Effect.gen(function*() {
  const { ready } = yield* Migrations
  yield* ready.pipe(
    Effect.tapError((error) => Effect.logWarning("database migration failed; retrying", error.message)),
    Effect.retry(Schedule.spaced("5 seconds")),
    Effect.forkScoped
  )
}))
