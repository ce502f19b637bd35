import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { randomBytes } from "node:crypto"
import type { AccountId, ApiKeyId, Principal, Scope } from "../../schema/ApiKey.ts"
import { keyPrefix, scopes as allScopes } from "../../schema/ApiKey.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import { sha256 } from "../text/Sha256.ts"

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

export const newKey = () => `${keyPrefix}${randomBytes(32).toString("base64url")}`
export const newId = (prefix: string) => `${prefix}_${randomBytes(8).toString("hex")}`
export const hash = sha256

/** Scopes in their canonical order, without repeats. */
export const normalise = (scopes: ReadonlyArray<Scope>): ReadonlyArray<Scope> =>
  allScopes.filter((s) => scopes.includes(s))
export const parseScopes = (text: string): ReadonlyArray<Scope> => normalise(text.split(" ") as Array<Scope>)

/** No API key of that id. */
export class UnknownKey extends Data.TaggedError("UnknownKey")<{ readonly message: string }> {}

export const keyNotFound = (id: string) => new UnknownKey({ message: `There is no API key ${JSON.stringify(id)}.` })
