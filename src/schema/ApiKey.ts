import * as Schema from "effect/Schema"

/** An account: the owner of API keys, Jobs and idempotency keys. */
export const AccountId = Schema.String.pipe(Schema.brand("AccountId"))
export type AccountId = typeof AccountId.Type

/** How an operator names an account on the command line. */
export const AccountName = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/u, {
    expected: "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
  })
)

export const ApiKeyId = Schema.String.pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

/** What a key may do (docs/API.md, "Operations"). Approving spending is a scope of its own. */
export const scopes = ["jobs:read", "jobs:write", "approvals:write"] as const
export const Scope = Schema.Literals(scopes)
export type Scope = typeof Scope.Type

/** Who is calling: the account of a valid, unrevoked key, and that key's scopes. */
export interface Principal {
  readonly accountId: AccountId
  readonly keyId: ApiKeyId
  readonly scopes: ReadonlySet<Scope>
}

/**
 * A key's visible prefix. The rest is 32 random bytes, base64url: 256 bits, so a key cannot be
 * guessed, and only its SHA-256 is stored.
 */
export const keyPrefix = "rc_live_"

/** The shape of every key the service issues; anything else is refused without a lookup. */
export const keyPattern = /^rc_live_[A-Za-z0-9_-]{43}$/
