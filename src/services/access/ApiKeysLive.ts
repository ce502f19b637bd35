import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import type { AccountId, ApiKeyId, Principal, Scope } from "../../schema/ApiKey.ts"
import { keyPattern } from "../../schema/ApiKey.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import type { IssuedKey, KeyInfo } from "./ApiKeys.ts"
import { ApiKeys, hash, keyNotFound, newId, newKey, normalise, parseScopes } from "./ApiKeys.ts"

interface KeyRow {
  readonly id: string
  readonly account_id: string
  readonly account: string
  readonly scopes: string
  readonly created_at: Date
  readonly revoked_at: Date | null
}

const fromRow = (row: KeyRow): KeyInfo => ({
  id: row.id as ApiKeyId,
  accountId: row.account_id as AccountId,
  account: row.account,
  scopes: parseScopes(row.scopes),
  createdAt: row.created_at,
  revokedAt: row.revoked_at
})

/** PostgreSQL. */
export const layerLive = Layer.effect(ApiKeys)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("api keys")

  const create = Effect.fn("ApiKeys.create")(
    function*(options: { readonly account: string; readonly scopes: ReadonlyArray<Scope> }) {
      const [account] = yield* sql<{ readonly id: string }>`
        INSERT INTO accounts (id, name) VALUES (${newId("acct")}, ${options.account})
        ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
        RETURNING id`
      const key = newKey()
      const scopes = normalise(options.scopes)
      const [row] = yield* sql<{ readonly id: string; readonly created_at: Date }>`
        INSERT INTO api_keys (id, account_id, key_hash, scopes)
        VALUES (${newId("key")}, ${account!.id}, ${hash(key)}, ${scopes.join(" ")})
        RETURNING id, created_at`
      return {
        id: row!.id as ApiKeyId,
        key: Redacted.make(key),
        accountId: account!.id as AccountId,
        account: options.account,
        scopes,
        createdAt: row!.created_at
      } satisfies IssuedKey
    },
    (effect) => guard(sql.withTransaction(effect))
  )

  const select = sql`
    SELECT k.id, k.account_id, a.name AS account, k.scopes, k.created_at, k.revoked_at
    FROM api_keys k JOIN accounts a ON a.id = k.account_id`

  const list = guard(sql<KeyRow>`${select} ORDER BY k.created_at, k.id`).pipe(Effect.map((rows) => rows.map(fromRow)))

  const revoke = Effect.fn("ApiKeys.revoke")(
    function*(id: string) {
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${id} AND revoked_at IS NULL`
      const [row] = yield* sql<KeyRow>`${select} WHERE k.id = ${id}`
      return row === undefined ? yield* Effect.fail(keyNotFound(id)) : fromRow(row)
    },
    (effect) => guard(effect)
  )

  const authenticate = Effect.fn("ApiKeys.authenticate")(function*(key: Redacted.Redacted<string>) {
    const text = Redacted.value(key)
    if (!keyPattern.test(text)) return Option.none<Principal>()
    const [row] = yield* guard(sql<{ readonly id: string; readonly account_id: string; readonly scopes: string }>`
      SELECT id, account_id, scopes FROM api_keys WHERE key_hash = ${hash(text)} AND revoked_at IS NULL`)
    return row === undefined ? Option.none<Principal>() : Option.some<Principal>({
      accountId: row.account_id as AccountId,
      keyId: row.id as ApiKeyId,
      scopes: new Set(parseScopes(row.scopes))
    })
  })

  return { create, list, revoke, authenticate }
}))
