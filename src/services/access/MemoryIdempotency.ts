import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import { randomUUID } from "node:crypto"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { Claim, StoredAnswer } from "./Idempotency.ts"
import { Idempotency, IdempotencyConfig, inUse, reused } from "./Idempotency.ts"

interface Entry {
  readonly fingerprint: string
  readonly token: string
  readonly claimedUntil: number
  readonly expiresAt: number
  readonly answer: StoredAnswer | undefined
}

/**
 * In memory, with the semantics of the SQL `layer`. One lock orders claims and completions as
 * PostgreSQL's row locks and transactions do; time is the `Clock`'s, so tests can move it.
 */
export const layerMemory = Layer.effect(Idempotency)(Effect.gen(function*() {
  const config = yield* IdempotencyConfig
  const ttl = Duration.toMillis(config.claimTtl)
  const retention = Duration.toMillis(config.retention)
  const store = yield* Ref.make(new Map<string, Entry>())
  const lock = yield* Semaphore.make(1)
  const id = (accountId: AccountId, key: string) => `${accountId}\u0000${key}`

  const isHeld = (entry: Entry | undefined, claim: Claim) => entry?.token === claim.token && entry.answer === undefined

  const release = Effect.fnUntraced(function*(claim: Claim) {
    yield* Ref.update(store, (entries) => {
      if (!isHeld(entries.get(id(claim.accountId, claim.key)), claim)) return entries
      const next = new Map(entries)
      next.delete(id(claim.accountId, claim.key))
      return next
    })
  })

  return {
    claim: Effect.fnUntraced(
      function*(accountId, key, fingerprint) {
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
      },
      lock.withPermits(1)
    ),
    complete: Effect.fnUntraced(
      function*<E, R>(claim: Claim, operation: Effect.Effect<StoredAnswer, E, R>) {
        if (!isHeld((yield* Ref.get(store)).get(id(claim.accountId, claim.key)), claim)) {
          return yield* Effect.fail(inUse)
        }
        const answer = yield* operation
        yield* Ref.update(store, (entries) => {
          const entry = entries.get(id(claim.accountId, claim.key))!
          return new Map(entries).set(id(claim.accountId, claim.key), { ...entry, answer })
        })
        return answer
      },
      lock.withPermits(1),
      (effect, claim) => Effect.onExit(effect, (exit) => Exit.isSuccess(exit) ? Effect.void : release(claim))
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
