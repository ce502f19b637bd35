import { Clock, Config, Context, Data, Duration, Effect, Exit, Layer, Ref, Schema, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import * as Pruning from "../store/Pruning.ts"
import * as StoreGuard from "../store/StoreGuard.ts"

/** An answer as it was sent: replayed byte for byte. */
export interface StoredAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** Another request holds the key now: retry after `retryAfter` seconds. */
export class KeyInUse extends Data.TaggedError("KeyInUse")<{ readonly message: string; readonly retryAfter: number }> {}

/** The key was used for another request (method, path or body). */
export class KeyReused extends Data.TaggedError("KeyReused")<{ readonly message: string }> {}

/** A key held by one request while its operation runs. */
export interface Claim {
  readonly accountId: AccountId
  readonly key: string
  readonly token: string
}

export type ClaimResult =
  | { readonly _tag: "Claimed"; readonly claim: Claim }
  | { readonly _tag: "Replay"; readonly answer: StoredAnswer }

/**
 * Idempotency keys (docs/API.md, "Idempotency"), scoped to an account. A request first claims its key in
 * a short transaction of its own; its operation's effects and its answer are then stored in one
 * transaction (`complete`), so that an answer exists exactly when the effects do. A claim that is not
 * completed (the process died) expires after the claim TTL and the next request with the key runs the
 * operation; answers are kept for the retention period, then pruned.
 */
export class Idempotency extends Context.Service<Idempotency, {
  /**
   * Claims `key` for a request with `fingerprint`; or the answer stored for the same fingerprint; or
   * `KeyInUse` while another request holds it; or `KeyReused` when it was used
   * for another fingerprint.
   */
  readonly claim: (
    accountId: AccountId,
    key: string,
    fingerprint: string
  ) => Effect.Effect<ClaimResult, KeyInUse | KeyReused | Unavailable>
  /**
   * Runs `operation` and stores its answer with its effects, atomically (one transaction on
   * PostgreSQL). When the operation fails or dies, nothing is stored and the claim is released, so that
   * a retry runs it again; when the claim was lost meanwhile, nothing is stored either and the request
   * is told the key is in use.
   */
  readonly complete: <E, R>(
    claim: Claim,
    operation: Effect.Effect<StoredAnswer, E, R>
  ) => Effect.Effect<StoredAnswer, E | KeyInUse | Unavailable, R>
  /** Gives a claim up without storing an answer. */
  readonly release: (claim: Claim) => Effect.Effect<void, Unavailable>
  /** Deletes the keys older than the retention period; answers how many. */
  readonly prune: Effect.Effect<number, Unavailable>
}>()("Idempotency") {}

/** A configured duration above zero (`500 millis`, `30 seconds`). */
export const PositiveDuration = Schema.DurationFromString.check(
  Schema.makeFilter((duration) => Duration.isGreaterThan(duration, Duration.zero) || "expected a duration above zero")
)

/** `IDEMPOTENCY_CLAIM_TTL` (30 seconds) and `IDEMPOTENCY_RETENTION` (24 hours). */
export const IdempotencyConfig = Config.all({
  claimTtl: Config.schema(PositiveDuration, "IDEMPOTENCY_CLAIM_TTL").pipe(Config.withDefault(Duration.seconds(30))),
  retention: Config.schema(PositiveDuration, "IDEMPOTENCY_RETENTION").pipe(Config.withDefault(Duration.hours(24)))
})

/** How long a request that finds its key in use is asked to wait. */
export const inUseRetryAfter = 1

const inUse = new KeyInUse({
  message: "A request with this Idempotency-Key is still in progress; retry it shortly.",
  retryAfter: inUseRetryAfter
})
const reused = new KeyReused({
  message: "This Idempotency-Key was used for a different request (method, path or body); use a new key."
})

interface KeyRow {
  readonly fingerprint: string
  readonly status: number | null
  readonly headers: string | null
  readonly body: Uint8Array | null
}

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder()

/** PostgreSQL. */
export const layerLive = Layer.effect(Idempotency)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("idempotency")
  const config = yield* IdempotencyConfig
  const ttlMillis = Duration.toMillis(config.claimTtl)
  const retentionMillis = Duration.toMillis(config.retention)

  // Takes the key when it is free: new, expired, or claimed by a request whose claim has lapsed.
  const upsert = (accountId: AccountId, key: string, fingerprint: string, token: string) =>
    sql<{ readonly token: string }>`
      INSERT INTO idempotency_keys (account_id, key, fingerprint, token, claimed_until, expires_at)
      VALUES (
        ${accountId}, ${key}, ${fingerprint}, ${token},
        now() + ${ttlMillis}::double precision * interval '1 millisecond',
        now() + ${retentionMillis}::double precision * interval '1 millisecond'
      )
      ON CONFLICT (account_id, key) DO UPDATE SET
        fingerprint = EXCLUDED.fingerprint, token = EXCLUDED.token, claimed_until = EXCLUDED.claimed_until,
        expires_at = EXCLUDED.expires_at, created_at = now(), status = NULL, headers = NULL, body = NULL
      WHERE idempotency_keys.expires_at <= now()
        OR (idempotency_keys.status IS NULL AND idempotency_keys.claimed_until <= now())
      RETURNING token`

  const claim = (accountId: AccountId, key: string, fingerprint: string) =>
    guard(Effect.gen(function*() {
      const token = randomUUID()
      // Twice at most: a row pruned between the two statements is free on the second try.
      for (let attempt = 0; attempt < 2; attempt++) {
        const [claimed] = yield* upsert(accountId, key, fingerprint, token)
        if (claimed?.token === token) return { _tag: "Claimed", claim: { accountId, key, token } } as const
        const [row] = yield* sql<KeyRow>`
          SELECT fingerprint, status, headers, body FROM idempotency_keys
          WHERE account_id = ${accountId} AND key = ${key} AND expires_at > now()`
        if (row === undefined) continue
        if (row.fingerprint !== fingerprint) return yield* Effect.fail(reused)
        if (row.status === null) return yield* Effect.fail(inUse)
        return {
          _tag: "Replay",
          answer: {
            status: row.status,
            headers: JSON.parse(row.headers ?? "{}"),
            body: fromUtf8.decode(row.body ?? new Uint8Array())
          }
        } as const
      }
      return yield* Effect.fail(inUse)
    }))

  const release = (claim: Claim) =>
    guard(sql`
      DELETE FROM idempotency_keys
      WHERE account_id = ${claim.accountId} AND key = ${claim.key} AND token = ${claim.token} AND status IS NULL`)
      .pipe(Effect.asVoid)

  // The claim is checked with a plain read, and the key row written last: the operation's own first
  // write (which locks its Job) then comes first in the transaction, which the events' positions rely on.
  const complete = <E, R>(claim: Claim, operation: Effect.Effect<StoredAnswer, E, R>) =>
    guard(sql.withTransaction(Effect.gen(function*() {
      const [held] = yield* sql`
        SELECT 1 FROM idempotency_keys
        WHERE account_id = ${claim.accountId} AND key = ${claim.key} AND token = ${claim.token} AND status IS NULL`
      if (held === undefined) return yield* Effect.fail(inUse)
      const answer = yield* operation
      const stored = yield* sql`
        UPDATE idempotency_keys
        SET status = ${answer.status}, headers = ${JSON.stringify(answer.headers)}, body = ${utf8.encode(answer.body)},
          claimed_until = NULL
        WHERE account_id = ${claim.accountId} AND key = ${claim.key} AND token = ${claim.token} AND status IS NULL
        RETURNING 1`
      if (stored.length === 0) return yield* Effect.fail(inUse)
      return answer
    }))).pipe(
      Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : release(claim).pipe(Effect.ignore))
    )

  const prune = guard(sql<{ readonly n: number }>`
    WITH pruned AS (DELETE FROM idempotency_keys WHERE expires_at <= now() RETURNING 1)
    SELECT count(*)::int AS n FROM pruned`).pipe(Effect.map(([row]) => row?.n ?? 0))

  return { claim, complete, release, prune }
}))

interface Entry {
  readonly fingerprint: string
  readonly token: string
  readonly claimedUntil: number
  readonly expiresAt: number
  readonly answer: StoredAnswer | undefined
}

/**
 * In memory, with the semantics of `layerLive`. One lock orders claims and completions as
 * PostgreSQL's row locks and transactions do; time is the `Clock`'s, so tests can move it.
 */
export const layerTest = Layer.effect(Idempotency)(Effect.gen(function*() {
  const config = yield* IdempotencyConfig
  const ttl = Duration.toMillis(config.claimTtl)
  const retention = Duration.toMillis(config.retention)
  const store = yield* Ref.make(new Map<string, Entry>())
  const lock = yield* Semaphore.make(1)
  const id = (accountId: AccountId, key: string) => `${accountId}\u0000${key}`

  const isHeld = (entry: Entry | undefined, claim: Claim) => entry?.token === claim.token && entry.answer === undefined

  const release = (claim: Claim) =>
    Ref.update(store, (entries) => {
      if (!isHeld(entries.get(id(claim.accountId, claim.key)), claim)) return entries
      const next = new Map(entries)
      next.delete(id(claim.accountId, claim.key))
      return next
    })

  return {
    claim: (accountId, key, fingerprint) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const entries = yield* Ref.get(store)
        const entry = entries.get(id(accountId, key))
        const free = entry === undefined || entry.expiresAt <= now
          || (entry.answer === undefined && entry.claimedUntil <= now)
        if (free) {
          const token = randomUUID()
          yield* Ref.set(
            store,
            new Map(entries).set(id(accountId, key), {
              fingerprint,
              token,
              claimedUntil: now + ttl,
              expiresAt: now + retention,
              answer: undefined
            })
          )
          return { _tag: "Claimed", claim: { accountId, key, token } } as const
        }
        if (entry.fingerprint !== fingerprint) return yield* Effect.fail(reused)
        if (entry.answer === undefined) return yield* Effect.fail(inUse)
        return { _tag: "Replay", answer: entry.answer } as const
      }).pipe(lock.withPermits(1)),
    complete: (claim, operation) =>
      Effect.gen(function*() {
        if (!isHeld((yield* Ref.get(store)).get(id(claim.accountId, claim.key)), claim)) {
          return yield* Effect.fail(inUse)
        }
        const answer = yield* operation
        yield* Ref.update(store, (entries) => {
          const entry = entries.get(id(claim.accountId, claim.key))!
          return new Map(entries).set(id(claim.accountId, claim.key), { ...entry, answer })
        })
        return answer
      }).pipe(
        lock.withPermits(1),
        Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : release(claim))
      ),
    release,
    prune: Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      return yield* Ref.modify(store, (entries) => {
        const kept = new Map(Array.from(entries).filter(([, entry]) => entry.expiresAt > now))
        return [entries.size - kept.size, kept]
      })
    }).pipe(lock.withPermits(1))
  }
}))

/** Prunes expired keys every `interval` (10 minutes unless told), in the background, for the layer's life. */
export const pruneLoop = (interval?: Duration.Input) =>
  Pruning.every("expired idempotency keys", Effect.flatMap(Idempotency, (idempotency) => idempotency.prune), interval)
