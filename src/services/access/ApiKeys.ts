import { Clock, Context, Data, Effect, Layer, Option, Redacted, Ref } from "effect"
import { SqlClient } from "effect/sql"
import { createHash, randomBytes } from "node:crypto"
import type { AccountId, ApiKeyId, Principal, Scope } from "../../schema/ApiKey.ts"
import { keyPattern, keyPrefix, scopes as allScopes } from "../../schema/ApiKey.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import * as StoreGuard from "../store/StoreGuard.ts"

/** A key as it is issued: the only time its text exists outside the caller's hands. */
export interface IssuedKey {
  readonly id: ApiKeyId
  readonly key: Redacted.Redacted<string>
  readonly accountId: AccountId
  readonly account: string
  readonly scopes: ReadonlyArray<Scope>
  readonly createdAt: Date
}

/** What is known of a key afterwards: everything but its text. */
export interface KeyInfo {
  readonly id: ApiKeyId
  readonly accountId: AccountId
  readonly account: string
  readonly scopes: ReadonlyArray<Scope>
  readonly createdAt: Date
  readonly revokedAt: Date | null
}

/**
 * Accounts and their API keys. A key is 32 random bytes behind a visible prefix, shown once when it
 * is created; only its SHA-256 is stored, so the store cannot give a key back, and looking one up by
 * its hash reveals nothing about any other.
 */
export class ApiKeys extends Context.Service<ApiKeys, {
  /** Issues a key for the named account, creating the account on its first key. */
  readonly create: (options: {
    readonly account: string
    readonly scopes: ReadonlyArray<Scope>
  }) => Effect.Effect<IssuedKey, Unavailable>
  /** Every key, oldest first. */
  readonly list: Effect.Effect<ReadonlyArray<KeyInfo>, Unavailable>
  /** Revokes a key at once; revoking a revoked key changes nothing. */
  readonly revoke: (id: string) => Effect.Effect<KeyInfo, UnknownKey | Unavailable>
  /** The account and scopes of a valid, unrevoked key. */
  readonly authenticate: (key: Redacted.Redacted<string>) => Effect.Effect<Option.Option<Principal>, Unavailable>
}>()("ApiKeys") {}

const newKey = () => `${keyPrefix}${randomBytes(32).toString("base64url")}`
const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString("hex")}`
const hash = (key: string): Uint8Array => createHash("sha256").update(key, "utf8").digest()

/** Scopes in their canonical order, without repeats. */
const normalise = (scopes: ReadonlyArray<Scope>): ReadonlyArray<Scope> => allScopes.filter((s) => scopes.includes(s))
const parseScopes = (text: string): ReadonlyArray<Scope> => normalise(text.split(" ") as Array<Scope>)

/** No API key of that id. */
export class UnknownKey extends Data.TaggedError("UnknownKey")<{ readonly message: string }> {}

const keyNotFound = (id: string) => new UnknownKey({ message: `There is no API key ${JSON.stringify(id)}.` })

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

  const create = (options: { readonly account: string; readonly scopes: ReadonlyArray<Scope> }) =>
    guard(sql.withTransaction(Effect.gen(function*() {
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
    })))

  const select = sql`
    SELECT k.id, k.account_id, a.name AS account, k.scopes, k.created_at, k.revoked_at
    FROM api_keys k JOIN accounts a ON a.id = k.account_id`

  const list = guard(sql<KeyRow>`${select} ORDER BY k.created_at, k.id`).pipe(Effect.map((rows) => rows.map(fromRow)))

  const revoke = (id: string) =>
    guard(Effect.gen(function*() {
      yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${id} AND revoked_at IS NULL`
      const [row] = yield* sql<KeyRow>`${select} WHERE k.id = ${id}`
      return row === undefined ? yield* Effect.fail(keyNotFound(id)) : fromRow(row)
    }))

  const authenticate = (key: Redacted.Redacted<string>) => {
    const text = Redacted.value(key)
    if (!keyPattern.test(text)) return Effect.succeedNone
    return guard(sql<{ readonly id: string; readonly account_id: string; readonly scopes: string }>`
      SELECT id, account_id, scopes FROM api_keys WHERE key_hash = ${hash(text)} AND revoked_at IS NULL`).pipe(
      Effect.map(([row]) =>
        row === undefined ? Option.none() : Option.some<Principal>({
          accountId: row.account_id as AccountId,
          keyId: row.id as ApiKeyId,
          scopes: new Set(parseScopes(row.scopes))
        })
      )
    )
  }

  return { create, list, revoke, authenticate }
}))

interface StoredKey extends KeyInfo {
  readonly hash: string
}

/** In memory, with the semantics of `layerLive`. */
export const layerTest = Layer.effect(ApiKeys)(Effect.gen(function*() {
  interface State {
    readonly accounts: Map<string, AccountId>
    readonly keys: Map<string, StoredKey>
  }
  const state = yield* Ref.make<State>({ accounts: new Map(), keys: new Map() })
  const info = ({ hash: _hash, ...key }: StoredKey): KeyInfo => key

  return {
    create: (options) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Ref.modify(state, ({ accounts, keys }) => {
          const accountId = accounts.get(options.account) ?? newId("acct") as AccountId
          const key = newKey()
          const stored: StoredKey = {
            id: newId("key") as ApiKeyId,
            accountId,
            account: options.account,
            scopes: normalise(options.scopes),
            createdAt: new Date(now),
            revokedAt: null,
            hash: Buffer.from(hash(key)).toString("hex")
          }
          const issued: IssuedKey = { ...info(stored), key: Redacted.make(key) }
          return [issued, {
            accounts: new Map(accounts).set(options.account, accountId),
            keys: new Map(keys).set(stored.id, stored)
          }]
        })),
    list: Effect.map(Ref.get(state), ({ keys }) => Array.from(keys.values(), info)),
    revoke: (id) =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (now) =>
          Ref.modify(state, (current): readonly [Effect.Effect<KeyInfo, UnknownKey>, State] => {
            const key = current.keys.get(id)
            if (key === undefined) return [Effect.fail(keyNotFound(id)), current]
            const revoked = key.revokedAt === null ? { ...key, revokedAt: new Date(now) } : key
            return [Effect.succeed(info(revoked)), { ...current, keys: new Map(current.keys).set(id, revoked) }]
          })
      ).pipe(Effect.flatten),
    authenticate: (key) =>
      Effect.map(Ref.get(state), ({ keys }) => {
        const text = Redacted.value(key)
        if (!keyPattern.test(text)) return Option.none()
        const digest = Buffer.from(hash(text)).toString("hex")
        const found = Array.from(keys.values()).find((k) => k.hash === digest && k.revokedAt === null)
        return found === undefined
          ? Option.none()
          : Option.some<Principal>({ accountId: found.accountId, keyId: found.id, scopes: new Set(found.scopes) })
      })
  }
}))
