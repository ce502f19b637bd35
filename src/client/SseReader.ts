import type * as Duration from "effect/Duration"
import * as Sse from "effect/encoding/Sse"

export interface SseHandlers {
  /** An event: `id:` (a position here), `event:` (its type) and `data:` (the JobEvent as JSON). */
  readonly event: (event: Sse.Event) => void
  /** A `retry:` line: how long to wait before reconnecting. */
  readonly retry?: ((after: Duration.Duration) => void) | undefined
  /** A comment line (the service's heartbeat), which the SSE format otherwise ignores. */
  readonly comment?: (() => void) | undefined
}

/**
 * Reads a text/event-stream as it arrives, chunk by chunk, with effect's own SSE parser; comments are
 * counted apart, since the parser skips them. The client, the tests and the bench all read streams
 * through this one reader.
 */
export const makeReader = (handlers: SseHandlers) => {
  const parser = Sse.makeParser((parsed) =>
    parsed._tag === "Event" ? handlers.event(parsed) : handlers.retry?.(parsed.duration)
  )
  let partialLine = ""
  return (chunk: string) => {
    parser.feed(chunk)
    if (handlers.comment === undefined) return
    const lines = (partialLine + chunk).split(/\r\n|\r|\n/)
    partialLine = lines.pop()!
    for (const line of lines) if (line.startsWith(":")) handlers.comment()
  }
}

/** Every event of a whole SSE text (comments and `retry:` left out). */
export const parseEvents = (text: string): ReadonlyArray<Sse.Event> => {
  const events: Array<Sse.Event> = []
  makeReader({ event: (event) => events.push(event) })(text)
  return events
}
