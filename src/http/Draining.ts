import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/**
 * Set when the service begins to stop. Requests that would otherwise never end (event streams) end
 * then, so that the server's graceful close finishes the other requests in flight without waiting for
 * them; their clients resume after the last event they received.
 */
export class Draining extends Context.Service<Draining, Deferred.Deferred<void>>()("Draining") {}

export const layer = Layer.effect(Draining)(Deferred.make<void>())

/**
 * Built after the server it is merged over, so released before it: the server is told to drain before
 * it closes.
 */
export const onStop = Layer.effectDiscard(
  Effect.flatMap(Draining, (draining) => Effect.addFinalizer(() => Deferred.succeed(draining, undefined)))
)

/** `served` (an `HttpRouter.serve` layer) whose long requests end as it begins to stop. */
export const drained = <E, R>(served: Layer.Layer<never, E, R>) =>
  onStop.pipe(Layer.provideMerge(served), Layer.provide(layer))
