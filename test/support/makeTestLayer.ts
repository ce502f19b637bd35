import { Layer } from "effect"
import type { Context } from "effect"

/**
 * A layer for a service from only the members a test means to touch: reaching for any other member is a
 * defect naming it, so a test cannot pass by leaning on behaviour it never declared.
 */
export const makeTestLayer = <I, S extends object>(service: Context.Key<I, S>) => (implementation: Partial<S>) =>
  Layer.succeed(service)(
    new Proxy(implementation, {
      get(target, member) {
        if (member in target) return target[member as keyof typeof target]
        throw new Error(`${service.key}.${String(member)} is not part of this test's implementation`)
      }
    }) as S
  )
