import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { randomUUID } from "node:crypto"
import { AccountId } from "../../schema/ApiKey.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import type { Claim, StoredAnswer } from "./Idempotency.ts"
import { Idempotency, IdempotencyConfig, inUse, reused } from "./Idempotency.ts"

/** A key's row: claimed (its answer's columns null), or answered, with all three. */
const KeyRow = Schema.Union([
  Schema.Struct({ fingerprint: Schema.String, status: Schema.Null, headers: Schema.Null, body: Schema.Null }),
  Schema.Struct({
    fingerprint: Schema.String,
    status: Schema.Int,
    headers: Schema.fromJsonString(Schema.Record(Schema.String, Schema.String)),
    body: Schema.Uint8Array
  })
])

const KeyOf = Schema.Struct({ accountId: AccountId, key: Schema.String })

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder()

/** PostgreSQL. */
export const layer = Layer.effect(Idempotency)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("idempotency")
  const config = yield* IdempotencyConfig
  const ttlMillis = Duration.toMillis(config.claimTtl)
  const retentionMillis = Duration.toMillis(config.retention)

  // Takes the key when it is free: new, expired, or claimed by a request whose claim has lapsed.
  const upsert = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...KeyOf.fields, fingerprint: Schema.String, token: Schema.String }),
    Result: Schema.Struct({ token: Schema.String }),
    execute: ({ accountId, fingerprint, key, token }) =>
      sql`
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
  })

  const select = SqlSchema.findOneOption({
    Request: KeyOf,
    Result: KeyRow,
    execute: ({ accountId, key }) =>
      sql`
          SELECT fingerprint, status, headers, body FROM idempotency_keys
          WHERE account_id = ${accountId} AND key = ${key} AND expires_at > now()`
  })

  // Untraced: a claim and its completion are on the path of every Job API request that writes.
  const claim = Effect.fnUntraced(
    function*(accountId: AccountId, key: string, fingerprint: string) {
      const token = randomUUID()
      // Twice at most: a row pruned between the two statements is free on the second try.
      for (let attempt = 0; attempt < 2; attempt++) {
        const claimed = yield* upsert({ accountId, key, fingerprint, token })
        if (Option.isSome(claimed) && claimed.value.token === token) {
          return { _tag: "Claimed", claim: { accountId, key, token } } as const
        }
        const found = yield* select({ accountId, key })
        if (Option.isNone(found)) continue
        const row = found.value
        if (row.fingerprint !== fingerprint) return yield* Effect.fail(reused)
        if (row.status === null) return yield* Effect.fail(inUse)
        return {
          _tag: "Replay",
          answer: {
            status: row.status,
            headers: row.headers,
            body: fromUtf8.decode(row.body)
          }
        } as const
      }
      return yield* Effect.fail(inUse)
    },
    (effect) => guard(effect)
  )

  const release = Effect.fnUntraced(function*(claim: Claim) {
    yield* guard(sql`
      DELETE FROM idempotency_keys
      WHERE account_id = ${claim.accountId} AND key = ${claim.key} AND token = ${claim.token} AND status IS NULL`)
  })

  // The claim is checked with a plain read, and the key row written last: the operation's own first
  // write (which locks its Job) then comes first in the transaction, which the events' positions rely on.
  const complete = Effect.fnUntraced(
    function*<E, R>(claim: Claim, operation: Effect.Effect<StoredAnswer, E, R>) {
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
    },
    (effect) => guard(sql.withTransaction(effect)),
    (effect, claim) =>
      Effect.onExit(effect, (exit) => Exit.isSuccess(exit) ? Effect.void : release(claim).pipe(Effect.ignore))
  )

  const deleteExpired = SqlSchema.findOne({
    Request: Schema.Void,
    Result: Schema.Struct({ n: Schema.Int }),
    execute: () =>
      sql`
    WITH pruned AS (DELETE FROM idempotency_keys WHERE expires_at <= now() RETURNING 1)
    SELECT count(*)::int AS n FROM pruned`
  })

  const prune = guard(deleteExpired(undefined)).pipe(Effect.map((row) => row.n))

  return { claim, complete, release, prune }
}))
