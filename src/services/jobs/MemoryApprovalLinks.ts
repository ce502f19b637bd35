import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import type { StoredLink } from "./ApprovalLinks.ts"
import { ApprovalLinks, make } from "./ApprovalLinks.ts"

/**
 * In memory, on the store the Job family's memory layers share. Creations and decisions of links apply
 * one at a time, so that a link decides once however many requests race on it, as the row lock orders
 * them on PostgreSQL; the Job's own change is atomic in its store, and what follows it here cannot fail.
 */
export const layerMemory = Layer.effect(ApprovalLinks)(Effect.gen(function*() {
  const links = yield* Ref.make<ReadonlyMap<string, StoredLink>>(new Map())
  const lock = yield* Semaphore.make(1)
  const keep = (tokenHash: string, link: StoredLink) =>
    Ref.update(links, (current) => new Map(current).set(tokenHash, link))
  return yield* make<never>({
    atomically: (effect) => lock.withPermits(1)(effect),
    read: (effect) => effect,
    find: (tokenHash) => Effect.map(Ref.get(links), (current) => Option.fromUndefinedOr(current.get(tokenHash))),
    insert: keep,
    markUsed: keep
  })
}))
