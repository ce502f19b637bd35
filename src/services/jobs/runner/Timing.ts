import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Schedule from "effect/Schedule"

/**
 * Every wait of a Job's background work, in one place, so that a test can shorten them all (a
 * model-based test runs thousands of Jobs through retries, recoveries and restarts in minutes) without
 * changing what the work does. The defaults are the service's; nothing in production sets it.
 */
export interface Timing {
  /** A provider's transient failure: the n-th retry with the same key waits `first` × 2^(n-1), at most `max`. */
  readonly providerBackoff: { readonly first: Duration.Duration; readonly max: Duration.Duration }
  /**
   * What cannot answer now (the store, a provider asked to quote or to verify) is asked again after
   * `first`, doubling, at most `max` apart, for as long as it takes.
   */
  readonly waitOut: { readonly first: Duration.Duration; readonly max: Duration.Duration }
  /** The pause before the second attempt to undo an execution, doubling before each later one. */
  readonly undoRetry: Duration.Duration
  /** How long a run waits for an older revision's execution to be settled before it looks again. */
  readonly blockedWait: Duration.Duration
  /** How often the runner sweeps the store for runs whose start was lost and proposals past their expiry. */
  readonly sweepInterval: Duration.Duration
}

export const production: Timing = {
  providerBackoff: { first: Duration.millis(200), max: Duration.seconds(5) },
  waitOut: { first: Duration.millis(200), max: Duration.seconds(30) },
  undoRetry: Duration.millis(200),
  blockedWait: Duration.millis(250),
  sweepInterval: Duration.seconds(10)
}

export const Timing = Context.Reference<Timing>("Timing", { defaultValue: () => production })

/** The pause before the n-th retry of a transient failure (1-based). */
export const backoff = (timing: Timing, attempt: number) =>
  Duration.min(
    timing.providerBackoff.max,
    Duration.times(timing.providerBackoff.first, 2 ** Math.max(0, attempt - 1))
  )

/** The pause before the attempt to undo that follows `failed` failed attempts (1-based). */
export const undoBackoff = (timing: Timing, failed: number) =>
  Duration.times(timing.undoRetry, 2 ** Math.max(0, failed - 1))

export const waitOut = (timing: Timing) =>
  Schedule.min([Schedule.exponential(timing.waitOut.first, 2), Schedule.spaced(timing.waitOut.max)])
