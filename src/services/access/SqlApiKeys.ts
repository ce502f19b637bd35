import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import type { Principal } from "../../schema/ApiKey.ts"
import { AccountId, ApiKeyId, keyPattern, Scope } from "../../schema/ApiKey.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import type { IssuedKey } from "./ApiKeys.ts"
import { ApiKeys, hash, keyNotFound, newId, newKey, normalise, parseScopes } from "./ApiKeys.ts"

/** A key's scopes as stored: space-separated, in their canonical order. */
const ScopesText = Schema.String.pipe(Schema.decodeTo(
  Schema.Array(Scope),
  SchemaTransformation.transform({ decode: parseScopes, encode: (scopes) => scopes.join(" ") })
))

/** A key with its account's name: what is known of it. */
const KeyRow = Schema.Struct({
  id: ApiKeyId,
  accountId: AccountId,
  account: Schema.String,
  scopes: ScopesText,
  createdAt: Schema.Date,
  revokedAt: Schema.NullOr(Schema.Date)
}).pipe(Schema.encodeKeys({ accountId: "account_id", createdAt: "created_at", revokedAt: "revoked_at" }))

/** An unrevoked key, found by its hash. */
const PrincipalRow = Schema.Struct({ keyId: ApiKeyId, accountId: AccountId, scopes: ScopesText }).pipe(
  Schema.encodeKeys({ keyId: "id", accountId: "account_id" })
)

/** PostgreSQL. */
export const layer = Layer.effect(ApiKeys)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("api keys")

  const insertAccount = SqlSchema.findOne({
    Request: Schema.Struct({ id: Schema.String, name: Schema.String }),
    Result: Schema.Struct({ id: AccountId }),
    execute: ({ id, name }) =>
      sql`
        INSERT INTO accounts (id, name) VALUES (${id}, ${name})
        ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
        RETURNING id`
  })

  const insertKey = SqlSchema.findOne({
    Request: Schema.Struct({ id: Schema.String, accountId: AccountId, keyHash: Schema.Uint8Array, scopes: ScopesText }),
    Result: Schema.Struct({ id: ApiKeyId, createdAt: Schema.Date }).pipe(
      Schema.encodeKeys({ createdAt: "created_at" })
    ),
    execute: ({ accountId, id, keyHash, scopes }) =>
      sql`
        INSERT INTO api_keys (id, account_id, key_hash, scopes)
        VALUES (${id}, ${accountId}, ${keyHash}, ${scopes})
        RETURNING id, created_at`
  })

  const create = Effect.fn("ApiKeys.create")(
    function*(options: { readonly account: string; readonly scopes: ReadonlyArray<Scope> }) {
      const account = yield* insertAccount({ id: newId("acct"), name: options.account })
      const key = newKey()
      const scopes = normalise(options.scopes)
      const row = yield* insertKey({ id: newId("key"), accountId: account.id, keyHash: hash(key), scopes })
      return {
        id: row.id,
        key: Redacted.make(key),
        accountId: account.id,
        account: options.account,
        scopes,
        createdAt: row.createdAt
      } satisfies IssuedKey
    },
    (effect) => guard(sql.withTransaction(effect))
  )

  const select = sql`
    SELECT k.id, k.account_id, a.name AS account, k.scopes, k.created_at, k.revoked_at
    FROM api_keys k JOIN accounts a ON a.id = k.account_id`

  const selectAll = SqlSchema.findAll({
    Request: Schema.Void,
    Result: KeyRow,
    execute: () => sql`${select} ORDER BY k.created_at, k.id`
  })

  const selectOne = SqlSchema.findOneOption({
    Request: Schema.Struct({ id: Schema.String }),
    Result: KeyRow,
    execute: ({ id }) => sql`${select} WHERE k.id = ${id}`
  })

  const list = guard(selectAll(undefined))

  const revoke = Effect.fn("ApiKeys.revoke")(
    function*(id: string) {
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${id} AND revoked_at IS NULL`
      const row = yield* selectOne({ id })
      return Option.isNone(row) ? yield* Effect.fail(keyNotFound(id)) : row.value
    },
    (effect) => guard(effect)
  )

  const selectPrincipal = SqlSchema.findOneOption({
    Request: Schema.Struct({ keyHash: Schema.Uint8Array }),
    Result: PrincipalRow,
    execute: ({ keyHash }) =>
      sql`
      SELECT id, account_id, scopes FROM api_keys WHERE key_hash = ${keyHash} AND revoked_at IS NULL`
  })

  // Untraced, as every step of a request's path is: a span per Job API request is paid by every request.
  const authenticate = Effect.fnUntraced(function*(key: Redacted.Redacted<string>) {
    const text = Redacted.value(key)
    if (!keyPattern.test(text)) return Option.none<Principal>()
    const row = yield* guard(selectPrincipal({ keyHash: hash(text) }))
    return Option.map(row, (found): Principal => ({
      accountId: found.accountId,
      keyId: found.keyId,
      scopes: new Set(found.scopes)
    }))
  })

  return { create, list, revoke, authenticate }
}))
