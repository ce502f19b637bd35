import * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"

/** A configured duration above zero (`500 millis`, `30 seconds`), as every TTL and interval setting is read. */
export const PositiveDuration = Schema.DurationFromString.check(
  Schema.makeFilter((duration) => Duration.isGreaterThan(duration, Duration.zero) || "expected a duration above zero")
)
