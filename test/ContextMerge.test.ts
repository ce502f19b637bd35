import { assert, describe, it } from "@effect/vitest"
import { Context } from "effect"

/**
 * `patches/effect+4.1.0.patch` makes `Context.merge` reuse the merge of a shared base (what every
 * request's context is, plus a few services) instead of copying both maps. It must keep the meaning:
 * `that` wins, everything else of `self` stays, and no merge sees another's services.
 */
const A = Context.Service<number>("A")
const B = Context.Service<number>("B")
const C = Context.Service<number>("C")
const D = Context.Service<number>("D")
const read = (context: Context.Context<never>) => [A, B, C, D].map((key) => Context.getOrUndefined(context, key))

describe("Context.merge (patched)", () => {
  const base = Context.makeUnsafe(new Map<string, unknown>([["A", 1], ["B", 2]]))
  const that = Context.make(B, 20).pipe(Context.add(D, 40))

  it("lets `that` win and keeps the rest of `self`, overlays included", () => {
    assert.deepStrictEqual(read(Context.merge(base.pipe(Context.add(C, 3)), that)), [1, 20, 3, 40])
    assert.deepStrictEqual(read(Context.merge(base.pipe(Context.add(D, 4)), that)), [1, 20, undefined, 40])
    assert.deepStrictEqual(read(Context.merge(base, that)), [1, 20, undefined, 40])
  })

  it("gives every merge on one base its own services", () => {
    const first = Context.merge(base.pipe(Context.add(C, 3)), that)
    const second = Context.merge(base.pipe(Context.add(C, 5)), that)
    assert.deepStrictEqual([read(first), read(second)], [[1, 20, 3, 40], [1, 20, 5, 40]])
    assert.deepStrictEqual(read(Context.merge(base.pipe(Context.add(B, 7)), Context.empty())), [
      1,
      7,
      undefined,
      undefined
    ])
    assert.deepStrictEqual(read(base), [1, 2, undefined, undefined], "the base is never mutated")
  })
})
