import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Sse from "effect/encoding/Sse"
import * as HttpApiClient from "effect/http-api/HttpApiClient"
import * as HttpClient from "effect/http/HttpClient"
import type { HttpClientError } from "effect/http/HttpClientError"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { listEvents, listJobEvents, PreviewApi } from "../http/JobsApi.ts"
import {
  CursorExpired,
  Forbidden,
  InvalidRequest,
  NotFound,
  TooManyStreams,
  Unauthorized
} from "../schema/ApiErrors.ts"
import { JobEvent } from "../schema/JobEvent.ts"
import * as SseReader from "./SseReader.ts"

/**
 * A typed client of the service's API, derived from the same HttpApi definition the server runs
 * (`PreviewApi`): every operation with its documents and errors as the server declares them, and a
 * reader of event streams that resumes by itself.
 */

export interface ClientOptions {
  /** Where the service is, e.g. `http://localhost:8080`. */
  readonly baseUrl: string
  /** An API key (`rc_live_...`), sent as `Authorization: Bearer`. */
  readonly apiKey: Redacted.Redacted | string
}

export interface FollowOptions {
  /** Only this Job's events; otherwise every event of the account. */
  readonly jobId?: string | undefined
  /** Resume after this position (0: from the oldest kept). */
  readonly after?: number | undefined
  /** The wait before reconnecting when the server has not said (`retry:`). */
  readonly reconnectAfter?: Duration.Input | undefined
  /**
   * How long a connection may stay silent before it is taken for dead and opened again (45 seconds: the
   * server sends a heartbeat every 15).
   */
  readonly idleTimeout?: Duration.Input | undefined
}

/**
 * What ends a followed stream: what reconnecting cannot mend (any other 4xx is an `InvalidRequest`
 * naming its status), or an event this client cannot read (a newer service's event type). A
 * `TooManyStreams` ends it too: the account holds as many streams as it may, and waiting would only
 * hide that.
 */
export type FollowError =
  | NotFound
  | CursorExpired
  | TooManyStreams
  | Unauthorized
  | Forbidden
  | InvalidRequest
  | Schema.SchemaError

/** A connection that ended or failed in a way that a new one may mend (a 5xx, a dropped connection). */
class Reconnect extends Data.TaggedError("Reconnect")<{ readonly after?: Duration.Duration | undefined }> {}

const ErrorBody = Schema.Struct({ error: Schema.String, message: Schema.String })
const decodeErrorBody = Schema.decodeUnknownEffect(Schema.fromJsonString(ErrorBody))
const decodeEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(JobEvent))

const refusal = (status: number, message: string): FollowError | undefined => {
  switch (status) {
    case 401:
      return new Unauthorized({ message })
    case 403:
      return new Forbidden({ message })
    case 404:
      return new NotFound({ message })
    case 410:
      return new CursorExpired({ message })
    case 429:
      return new TooManyStreams({ message })
  }
  return status < 500 ? new InvalidRequest({ message: `HTTP ${status}: ${message}` }) : undefined
}

export const make = (options: ClientOptions) =>
  Effect.gen(function*() {
    const apiKey = typeof options.apiKey === "string" ? Redacted.make(options.apiKey) : options.apiKey
    const authorized = HttpClient.mapRequest(
      HttpClientRequest.bearerToken(Redacted.value(apiKey))
    )
    const api = yield* HttpApiClient.make(PreviewApi, {
      baseUrl: options.baseUrl,
      transformClient: authorized
    })
    const http = authorized(yield* HttpClient.HttpClient)

    /**
     * Every event after `after`, then each new one as the service publishes it, for as long as the
     * stream is read. A connection that ends or drops (or a 503) is opened again after the server's
     * `retry:` delay with `Last-Event-ID` set to the last position received, so no event is missed or
     * repeated across reconnections. It fails only for what a new connection cannot mend.
     */
    const follow = (followOptions: FollowOptions = {}): Stream.Stream<JobEvent, FollowError> =>
      Stream.suspend(() => {
        let cursor = followOptions.after ?? 0
        let reconnectAfter = Duration.fromInputUnsafe(followOptions.reconnectAfter ?? Duration.seconds(2))
        const idleTimeout = followOptions.idleTimeout ?? Duration.seconds(45)
        const path = followOptions.jobId === undefined
          ? listEvents.path
          : listJobEvents.path.replace(":id", encodeURIComponent(followOptions.jobId))

        const connection: Stream.Stream<JobEvent, FollowError | Reconnect> = Stream.unwrap(Effect.gen(function*() {
          const response = yield* http.execute(
            HttpClientRequest.get(`${options.baseUrl}${path}`).pipe(
              HttpClientRequest.setHeaders({ accept: "text/event-stream", "last-event-id": String(cursor) })
            )
          )
          if (response.status !== 200) {
            const body = yield* Effect.flatMap(response.text, decodeErrorBody).pipe(
              Effect.orElseSucceed(() => ({ error: "unknown", message: `HTTP ${response.status}` }))
            )
            const retryAfter = Number(response.headers["retry-after"])
            return yield* Effect.fail(
              refusal(response.status, body.message)
                ?? new Reconnect({ after: retryAfter > 0 ? Duration.seconds(retryAfter) : undefined })
            )
          }
          const parsed: Array<Sse.Event> = []
          const read = SseReader.makeReader({
            event: (event) => parsed.push(event),
            retry: (after) => reconnectAfter = after
          })
          return response.stream.pipe(
            // A connection that stays silent past its heartbeats is dead: it ends, and is opened again.
            Stream.timeout(idleTimeout),
            Stream.decodeText,
            Stream.map((text) => {
              read(text)
              return parsed.splice(0)
            }),
            Stream.flattenIterable,
            Stream.mapEffect((event) => decodeEvent(event.data)),
            Stream.map((event) => {
              cursor = event.position
              return event
            })
          )
        })).pipe(
          Stream.catchTag("HttpClientError", (_: HttpClientError) => Stream.fail(new Reconnect({})))
        )

        // One connection after another, for as long as the stream is read: a connection that ends (the
        // server ends streams when it stops) or drops is opened again after `retry:` (or Retry-After),
        // resuming after the last event received; what a new connection cannot mend ends the stream.
        const reconnecting = Schedule.forever.pipe(
          Schedule.setInputType<FollowError | Reconnect>(),
          Schedule.tap(({ input }) => input instanceof Reconnect ? Effect.void : Effect.fail(input)),
          Schedule.modifyDelay(({ input }) =>
            Effect.succeed(input instanceof Reconnect && input.after !== undefined ? input.after : reconnectAfter)
          )
        )
        return Stream.concat(connection, Stream.fail(new Reconnect({}))).pipe(
          Stream.retry(reconnecting)
        ) as Stream.Stream<JobEvent, FollowError>
      })

    return { ...api, follow }
  })

export type JobsClient = Effect.Success<ReturnType<typeof make>>
