import type { Cause } from "effect"
import { Logger } from "effect"

export interface Logged {
  readonly level: string
  readonly message: string
  readonly cause: Cause.Cause<unknown>
}

/**
 * What a suite's layers log, kept instead of printed, for tests that assert their expected errors.
 * `layer` replaces the loggers of what it is provided to; `entries` is everything logged since.
 */
export const collect = () => {
  const entries: Array<Logged> = []
  const logger = Logger.make((options) => {
    const message = options.message
    entries.push({
      level: options.logLevel,
      message: Array.isArray(message) ? message.map(String).join(" ") : String(message),
      cause: options.cause
    })
  })
  return { entries, layer: Logger.layer([logger]) }
}
