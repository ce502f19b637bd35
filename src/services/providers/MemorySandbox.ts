import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import type { Row } from "./Sandbox.ts"
import { make, toEntry } from "./Sandbox.ts"

/** In memory, with the semantics of the SQL `layer`: one lock orders calls as the row lock does. */
export const layerMemory = Layer.effectContext(Effect.gen(function*() {
  const rows = yield* Ref.make<ReadonlyArray<Row>>([])
  const lock = yield* Semaphore.make(1)
  return make({
    row: (key) => Effect.map(Ref.get(rows), (all) => Option.fromUndefinedOr(all.find((row) => row.key === key))),
    change: (key, decide) =>
      Effect.gen(function*() {
        const all = yield* Ref.get(rows)
        const decision = decide(all.find((row) => row.key === key))
        if (decision === undefined) return Option.none()
        const row = decision.row!
        yield* Ref.set(rows, all.some((r) => r.key === key) ? all.map((r) => r.key === key ? row : r) : [...all, row])
        return Option.some(decision.answer)
      }).pipe(
        lock.withPermits(1),
        Effect.flatMap(
          Option.match({ onNone: () => Effect.succeedNone, onSome: (answer) => Effect.map(answer, Option.some) })
        )
      ),
    entries: (jobId) =>
      Effect.map(Ref.get(rows), (all) => all.filter((row) => jobId === undefined || row.jobId === jobId).map(toEntry))
  })
}))
