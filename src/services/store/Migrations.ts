import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Semaphore from "effect/Semaphore"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { DatabaseConfig } from "./Database.ts"

/**
 * Members are kept as UTF-8 bytes (`bytea`): the contract accepts any well-formed text, U+0000
 * included, which a PostgreSQL `text` column cannot hold. `email_key` is the lower-cased address,
 * the identity of a member; `email` is the spelling of the first registration.
 * `last_submitted_at` is not written (a repeated registration would write as much as a new one; the log
 * message of `SqlWaitlist` says when one came), and is kept with what it holds.
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

/**
 * One row per (account, key): held by a request while `status` is null and `claimed_until` is in the
 * future; then the answer (`status`, `headers` as JSON, `body` as the exact bytes sent).
 */
const createIdempotencyKeys = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE idempotency_keys (
      account_id text NOT NULL,
      key text NOT NULL,
      fingerprint text NOT NULL,
      token text NOT NULL,
      claimed_until timestamptz,
      status integer,
      headers text,
      body bytea,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      PRIMARY KEY (account_id, key)
    )`
  yield* sql`CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)`
})

/**
 * Jobs, their events and a snapshot per revision. Documents are JSON text (`text`, not `jsonb`, which
 * cannot hold U+0000, which a request may contain). `seq` orders the list of Jobs. An event's
 * `position` is derived from the `xid8` of the transaction that appended it (see `SqlJobStore.ts`);
 * `xid` is kept so that a reader publishes only events no running transaction can precede.
 */
const createJobs = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE jobs (
      id text PRIMARY KEY,
      account_id text NOT NULL,
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      revision integer NOT NULL,
      status text NOT NULL,
      record text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX jobs_account_seq ON jobs (account_id, seq DESC)`
  yield* sql`CREATE INDEX jobs_account_status_seq ON jobs (account_id, status, seq DESC)`
  yield* sql`CREATE INDEX jobs_interpreting ON jobs (seq) WHERE status = 'interpreting'`
  yield* sql`
    CREATE TABLE job_events (
      position bigint PRIMARY KEY,
      xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
      account_id text NOT NULL,
      job_id text NOT NULL REFERENCES jobs (id),
      job_revision integer NOT NULL,
      type text NOT NULL,
      data text NOT NULL,
      occurred_at timestamptz NOT NULL
    )`
  yield* sql`CREATE INDEX job_events_account_position ON job_events (account_id, position)`
  yield* sql`CREATE INDEX job_events_job_position ON job_events (job_id, position)`
  yield* sql`
    CREATE TABLE job_revisions (
      job_id text NOT NULL REFERENCES jobs (id),
      revision integer NOT NULL,
      snapshot text NOT NULL,
      first_position bigint NOT NULL,
      last_position bigint NOT NULL,
      PRIMARY KEY (job_id, revision)
    )`
})

/**
 * Reading history: the point-in-time view finds the last revision that ended by a position, and a
 * cursor is refused when events after it were pruned (`pruned_through`, per account).
 */
const createEventReading = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX job_revisions_job_last_position ON job_revisions (job_id, last_position)`
  yield* sql`CREATE INDEX job_events_occurred_at ON job_events (occurred_at)`
  yield* sql`
    CREATE TABLE job_event_retention (
      account_id text PRIMARY KEY,
      pruned_through bigint NOT NULL
    )`
})

/**
 * Proposals, approvals and the sandbox provider's ledger. A proposal is stored once, as the exact
 * canonical bytes its hash names. An approval is one decision on one proposal (so at most one per
 * hash), consumed by at most one execution. `needs_run` marks the Jobs whose background work is not
 * finished (the runner's sweep starts it again after a crash); `proposal_expires_at` the open
 * proposal's expiry, which the sweep enforces.
 */
const createProposalsAndApprovals = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE jobs ADD COLUMN needs_run boolean NOT NULL DEFAULT false`
  yield* sql`ALTER TABLE jobs ADD COLUMN proposal_expires_at timestamptz`
  yield* sql`UPDATE jobs SET needs_run = true WHERE status = 'interpreting'`
  yield* sql`CREATE INDEX jobs_needs_run ON jobs (seq) WHERE needs_run`
  yield* sql`CREATE INDEX jobs_proposal_expires_at ON jobs (proposal_expires_at) WHERE proposal_expires_at IS NOT NULL`
  yield* sql`
    CREATE TABLE job_proposals (
      job_id text NOT NULL REFERENCES jobs (id),
      hash text NOT NULL,
      bytes bytea NOT NULL,
      created_at timestamptz NOT NULL,
      PRIMARY KEY (job_id, hash)
    )`
  yield* sql`
    CREATE TABLE job_approvals (
      id text PRIMARY KEY,
      job_id text NOT NULL REFERENCES jobs (id),
      job_revision integer NOT NULL,
      proposal_hash text NOT NULL,
      decision text NOT NULL,
      reason text,
      decided_by text NOT NULL,
      created_at timestamptz NOT NULL,
      consumed_at timestamptz,
      UNIQUE (job_id, proposal_hash)
    )`
  yield* sql`
    CREATE TABLE sandbox_ledger (
      key text PRIMARY KEY,
      job_id text NOT NULL,
      proposal_hash text NOT NULL,
      offer_id text NOT NULL,
      document text NOT NULL,
      calls integer NOT NULL,
      effects integer NOT NULL,
      state text NOT NULL,
      reference text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX sandbox_ledger_job ON sandbox_ledger (job_id, created_at)`
})

/**
 * Approval links (docs/API.md, "Approval links"): a token is kept only as its SHA-256 (`token_hash`);
 * `created_by` is the key that asked for it; `approval_id`, `decision` and `decided_at` are the one
 * decision made through it.
 */
const createApprovalLinks = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE approval_links (
      id text PRIMARY KEY,
      token_hash text NOT NULL UNIQUE,
      account_id text NOT NULL,
      job_id text NOT NULL REFERENCES jobs (id),
      job_revision integer NOT NULL,
      proposal_hash text NOT NULL,
      expires_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL,
      created_by text NOT NULL,
      approval_id text REFERENCES job_approvals (id),
      decision text,
      decided_at timestamptz
    )`
  yield* sql`CREATE INDEX approval_links_job ON approval_links (job_id)`
})

export const migrations = Migrator.fromRecord({
  "0001_waitlist_members": createWaitlistMembers,
  "0002_accounts_and_api_keys": createAccountsAndApiKeys,
  "0003_idempotency_keys": createIdempotencyKeys,
  "0004_jobs": createJobs,
  "0005_event_reading": createEventReading,
  "0006_proposals_and_approvals": createProposalsAndApprovals,
  "0007_approval_links": createApprovalLinks
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

/**
 * The service migrates at start, in the background and until it succeeds, so it starts while the
 * database is down. It waits for the first attempt, for a statement timeout at most, before it goes on
 * to listen: a fresh store takes 0.4-1 s to migrate, which the first join would otherwise wait for.
 */
export const migrateOnStart = Layer.effectDiscard(Effect.gen(function*() {
  const { ready } = yield* Migrations
  const { statementTimeout } = yield* DatabaseConfig
  const attempted = yield* Latch.make()
  yield* ready.pipe(
    Effect.ensuring(attempted.open),
    Effect.tapError((error) => Effect.logWarning("database migration failed; retrying", error.message)),
    Effect.retry(Schedule.spaced("5 seconds")),
    Effect.forkScoped
  )
  yield* Effect.timeoutOption(attempted.await, statementTimeout)
}))
