import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import type { AccountId, ApiKeyId, Principal } from "../../schema/ApiKey.ts"
import { keyPattern } from "../../schema/ApiKey.ts"
import type { IssuedKey, KeyInfo } from "./ApiKeys.ts"
import { ApiKeys, hash, keyNotFound, newId, newKey, normalise } from "./ApiKeys.ts"

interface StoredKey extends KeyInfo {
  readonly hash: string
}

/** In memory, with the semantics of the SQL `layer`. */
export const layerMemory = Layer.effect(ApiKeys)(Effect.gen(function*() {
  interface State {
    readonly accounts: Map<string, AccountId>
    readonly keys: Map<string, StoredKey>
  }
  const state = yield* Ref.make<State>({ accounts: new Map(), keys: new Map() })
  const info = ({ hash: _hash, ...key }: StoredKey): KeyInfo => key

  return {
    create: Effect.fn("ApiKeys.create")(function*(options) {
      const now = yield* Clock.currentTimeMillis
      return yield* Ref.modify(state, ({ accounts, keys }) => {
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
      })
    }),
    list: Effect.map(Ref.get(state), ({ keys }) => Array.from(keys.values(), info)),
    revoke: Effect.fn("ApiKeys.revoke")(function*(id) {
      const now = yield* Clock.currentTimeMillis
      const revoked = yield* Ref.modify(state, (current): readonly [KeyInfo | undefined, State] => {
        const key = current.keys.get(id)
        if (key === undefined) return [undefined, current]
        const revoked = key.revokedAt === null ? { ...key, revokedAt: new Date(now) } : key
        return [info(revoked), { ...current, keys: new Map(current.keys).set(id, revoked) }]
      })
      return revoked === undefined ? yield* Effect.fail(keyNotFound(id)) : revoked
    }),
    authenticate: Effect.fnUntraced(function*(key) {
      const { keys } = yield* Ref.get(state)
      const text = Redacted.value(key)
      if (!keyPattern.test(text)) return Option.none<Principal>()
      const digest = Buffer.from(hash(text)).toString("hex")
      const found = Array.from(keys.values()).find((k) => k.hash === digest && k.revokedAt === null)
      return found === undefined
        ? Option.none<Principal>()
        : Option.some<Principal>({ accountId: found.accountId, keyId: found.id, scopes: new Set(found.scopes) })
    })
  }
}))
