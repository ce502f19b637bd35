import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"

/**
 * Runs `prune` (which answers how many rows it deleted) at start and then every `interval` (10 minutes
 * unless told), in the background, for the layer's life. A failure waits for the next round.
 */
export const every = <E, R>(
  what: string,
  prune: Effect.Effect<number, E, R>,
  interval: Duration.Input = Duration.minutes(10)
) =>
  Layer.effectDiscard(
    prune.pipe(
      Effect.tap((n) => n > 0 ? Effect.logInfo(`pruned ${what}`, n) : Effect.void),
      Effect.ignore,
      Effect.repeat(Schedule.spaced(interval)),
      Effect.forkScoped
    )
  )
