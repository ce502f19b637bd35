import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import { emailKey } from "../../schema/Waitlist.ts"
import type { Member } from "./Waitlist.ts"
import { Waitlist } from "./Waitlist.ts"

/** In memory, with the semantics of the SQL `layer`: one member per key, first spelling kept, ordered. */
export const layerMemory = Layer.effect(Waitlist)(Effect.gen(function*() {
  const store = yield* Ref.make(HashMap.empty<string, Member & { readonly seq: number }>())
  return {
    join: Effect.fnUntraced(function*(email) {
      const now = yield* Clock.currentTimeMillis
      yield* Ref.update(store, (members) => {
        const key = emailKey(email)
        return HashMap.has(members, key)
          ? members
          : HashMap.set(members, key, { email, registeredAt: new Date(now), seq: HashMap.size(members) })
      })
    }),
    count: Effect.map(Ref.get(store), HashMap.size),
    ready: Effect.void,
    members: Stream.unwrap(Effect.map(Ref.get(store), (members) =>
      Stream.fromIterable(
        Array.from(HashMap.values(members))
          .sort((a, b) => a.seq - b.seq)
          .map(({ email, registeredAt }): Member => ({ email, registeredAt }))
      )))
  }
}))
