import { Clock, Context, Duration, Effect, Layer } from "effect"

/**
 * Time a test moves on instead of waiting for it: the live clock plus an offset that only grows. Sleeps
 * still take their real time (the runner's retries and the sweep go on as they do); whatever reads the
 * time (a proposal's expiry, a link's, ...) sees the jump at once. So a test of an expiry keeps the
 * service's own TTL, under which nothing expires however slow the machine, and moves past it.
 */
export class TestTime extends Context.Service<TestTime, {
  /** Moves the time every service of the layer reads forward by `duration`. */
  readonly advance: (duration: Duration.Input) => Effect.Effect<void>
}>()("test/TestTime") {}

/**
 * The moved clock as `Clock.Clock`, beside `TestTime`: provided to a layer's services, and to every test
 * of the layer (a service reads the clock of the fiber that calls it).
 */
export const layer: Layer.Layer<TestTime> = Layer.effectContext(Effect.gen(function*() {
  const live = yield* Clock.Clock
  let offset = 0
  const millis = () => live.currentTimeMillisUnsafe() + offset
  const nanos = () => live.currentTimeNanosUnsafe() + BigInt(offset) * 1_000_000n
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: millis,
    currentTimeMillis: Effect.sync(millis),
    currentTimeNanosUnsafe: nanos,
    currentTimeNanos: Effect.sync(nanos),
    monotonicTimeNanosUnsafe: () => live.monotonicTimeNanosUnsafe(),
    monotonicTimeNanos: live.monotonicTimeNanos,
    sleep: (duration) => live.sleep(duration)
  }
  const time = TestTime.of({
    advance: (duration) => Effect.sync(() => void (offset += Duration.toMillis(Duration.fromInputUnsafe(duration))))
  })
  return Context.make(Clock.Clock, clock).pipe(Context.add(TestTime, time))
}))

/** Moves the layer's time forward by `duration`. */
export const advance = Effect.fnUntraced(function*(duration: Duration.Input) {
  yield* (yield* TestTime).advance(duration)
})

/** Moves the layer's time just past `instant` (an ISO 8601 time, such as a proposal's `expiresAt`), if it is not already. */
export const pass = Effect.fnUntraced(function*(instant: string) {
  const now = yield* Clock.currentTimeMillis
  yield* advance(Duration.millis(Math.max(0, Date.parse(instant) - now + 1)))
})
