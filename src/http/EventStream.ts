import * as Config from "effect/Config"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Sse from "effect/encoding/Sse"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Stream from "effect/Stream"
import type { JobEvent } from "../schema/JobEvent.ts"
import { PositiveDuration } from "../services/access/Idempotency.ts"

/** Events as Server-Sent Events (docs/API.md, "Events and views"), written with effect's own `Sse` encoder. */

/** What an SSE client is told to wait before it reconnects (`retry:`). */
const reconnectAfter = Duration.seconds(2)

/** `EVENTS_HEARTBEAT` (15 seconds): how often an idle event stream says it is alive. */
export const HeartbeatInterval = Config.schema(PositiveDuration, "EVENTS_HEARTBEAT").pipe(
  Config.withDefault(Duration.seconds(15))
)

/** Whether the client asks for Server-Sent Events (`Accept: text/event-stream`, not refused with q=0). */
export const wantsEventStream = (accept: string | undefined) =>
  accept !== undefined && accept.split(",").some((range) => {
    const [type = "", ...parameters] = range.split(";").map((part) => part.trim().toLowerCase())
    return type === "text/event-stream" && !parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter))
  })

const retry = Sse.encoder.write(new Sse.Retry({ duration: reconnectAfter, lastEventId: undefined }))

/** One event: `id:` its position, `event:` its type, `data:` the event as JSON. */
export const encodeEvent = (event: JobEvent) =>
  Sse.encoder.write({ _tag: "Event", id: String(event.position), event: event.type, data: JSON.stringify(event) })

/** A comment line: what keeps an idle connection (and every proxy on its way) open. */
const heartbeatText = ":\n\n"

/** The stream as Server-Sent Events: `retry:` first, the events, and a comment every `heartbeat`. */
export const response = (
  events: Stream.Stream<JobEvent, unknown>,
  heartbeat: Duration.Duration,
  draining: Deferred.Deferred<void>
) =>
  HttpServerResponse.stream(
    Stream.make(retry).pipe(
      Stream.concat(
        Stream.merge(
          events.pipe(
            Stream.map(encodeEvent),
            // A store that fails ends the stream: the client resumes after the last id it received.
            Stream.catchCause((cause) =>
              Stream.fromEffect(Effect.logWarning("event stream ended by its store", cause)).pipe(Stream.drain)
            )
          ),
          Stream.tick(heartbeat).pipe(Stream.drop(1), Stream.map(() => heartbeatText)),
          { haltStrategy: "left" }
        )
      ),
      Stream.interruptWhen(Deferred.await(draining)),
      Stream.encodeText
    ),
    {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-store", "x-accel-buffering": "no" }
    }
  )
