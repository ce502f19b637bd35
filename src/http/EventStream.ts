import { Config, Deferred, Duration, Effect, Schema } from "effect"
import type { Scope } from "effect"
import * as Sse from "effect/encoding/Sse"
import { HttpServerResponse } from "effect/http"
import { Readable } from "node:stream"
import { TooManyStreams } from "../schema/ApiErrors.ts"
import type { AccountId } from "../schema/ApiKey.ts"
import type { Unavailable } from "../schema/Errors.ts"
import type { JobEvent } from "../schema/JobEvent.ts"
import { PositiveDuration } from "../services/access/Idempotency.ts"
import { EventFeed } from "../services/events/EventFeed.ts"
import type { Following, FollowOptions } from "../services/events/EventFeed.ts"
import type { HistoryPruned, UnknownJob } from "../services/jobs/JobErrors.ts"

/**
 * Events as Server-Sent Events (docs/API.md, "Events and views"), written straight to each connection:
 * the feed hands every stream of an account the same events at once, they are encoded to bytes once, and
 * the same bytes are pushed to every connection's response. A stream holds no fiber, queue or timer of
 * its own: one heartbeat and one drain for all of them.
 */

/** What an SSE client is told to wait before it reconnects (`retry:`). */
const reconnectAfter = Duration.seconds(2)

/** `EVENTS_HEARTBEAT` (15 seconds): how often an idle event stream says it is alive. */
export const HeartbeatInterval = Config.schema(PositiveDuration, "EVENTS_HEARTBEAT").pipe(
  Config.withDefault(Duration.seconds(15))
)

/** `EVENTS_MAX_STREAMS_PER_ACCOUNT` (100): open event streams one account may hold on one process. */
export const MaxStreamsPerAccount = Config.schema(
  Schema.NumberFromString.pipe(Schema.decodeTo(Schema.Int.check(Schema.isGreaterThan(0)))),
  "EVENTS_MAX_STREAMS_PER_ACCOUNT"
).pipe(Config.withDefault(100))

/** Whether the client asks for Server-Sent Events (`Accept: text/event-stream`, not refused with q=0). */
export const wantsEventStream = (accept: string | undefined) =>
  accept !== undefined && accept.split(",").some((range) => {
    const [type = "", ...parameters] = range.split(";").map((part) => part.trim().toLowerCase())
    return type === "text/event-stream" && !parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter))
  })

const retry = Buffer.from(Sse.encoder.write(new Sse.Retry({ duration: reconnectAfter, lastEventId: undefined })))

/** One event: `id:` its position, `event:` its type, `data:` the event as JSON. */
export const encodeEvent = (event: JobEvent) =>
  Sse.encoder.write({ _tag: "Event", id: String(event.position), event: event.type, data: JSON.stringify(event) })

/** A comment line: what keeps an idle connection (and every proxy on its way) open. */
const heartbeatBytes = Buffer.from(":\n\n")

/**
 * Each event's text, and each delivery's bytes, made once however many streams carry them: the feed
 * hands the same objects to every stream of an account.
 */
const texts = new WeakMap<JobEvent, string>()
const chunks = new WeakMap<ReadonlyArray<JobEvent>, Buffer>()
const textOf = (event: JobEvent) => {
  let text = texts.get(event)
  if (text === undefined) texts.set(event, text = encodeEvent(event))
  return text
}
const chunkOf = (events: ReadonlyArray<JobEvent>) => {
  let chunk = chunks.get(events)
  if (chunk === undefined) chunks.set(events, chunk = Buffer.from(events.map(textOf).join("")))
  return chunk
}

/** Bytes a connection may have waiting for its client before it is ended (the client resumes from there). */
const maxWaiting = 4 * 1024 * 1024

/** One open stream: the body of its response, fed by the feed's deliveries. */
class Connection extends Readable {
  private following: Following | undefined
  /** The catch-up waiting for the client to take what it has. */
  private wakeCatchUp: (() => void) | undefined
  private ended = false
  /** Heartbeats seen while the server had not started writing the response (see `heartbeat`). */
  unread = 0

  private readonly release: (connection: Connection) => void

  constructor(release: (connection: Connection) => void) {
    super({ highWaterMark: 64 * 1024 })
    this.release = release
    this.push(retry)
  }

  override _read() {
    const wake = this.wakeCatchUp
    this.wakeCatchUp = undefined
    wake?.()
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    this.ended = true
    this.following?.close()
    this._read()
    this.release(this)
    callback(error)
  }

  /** What feeds it, closed when it ends (at once if it has ended already). */
  follows(following: Following) {
    this.following = following
    if (this.ended) following.close()
  }

  send(chunk: Buffer) {
    if (this.ended) return
    // A client this far behind is ended rather than held in memory: it resumes after what it has.
    if (this.readableLength > maxWaiting) return this.finish()
    this.push(chunk)
  }

  /** Ends the stream after what it has already been given. */
  finish() {
    if (this.ended) return
    this.ended = true
    this.following?.close()
    this.push(null)
  }

  readonly ready = Effect.callback<void>((resume) => {
    if (this.ended || this.readableLength < this.readableHighWaterMark) resume(Effect.void)
    else this.wakeCatchUp = () => resume(Effect.void)
  })
}

/**
 * The process's event streams: at most `maxPerAccount` open per account, each a `Connection`, every one
 * ended when `draining` is set.
 */
export const make = (options: {
  readonly heartbeat: Duration.Duration
  readonly maxPerAccount: number
  readonly draining: Deferred.Deferred<void>
}): Effect.Effect<
  {
    readonly open: (
      accountId: AccountId,
      follow: FollowOptions
    ) => Effect.Effect<HttpServerResponse.HttpServerResponse, TooManyStreams | UnknownJob | HistoryPruned | Unavailable>
  },
  never,
  EventFeed | Scope.Scope
> =>
  Effect.gen(function*() {
    const feed = yield* EventFeed
    const services = yield* Effect.context<never>()
    const open = new Set<Connection>()
    const perAccount = new Map<AccountId, number>()
    let draining = false

    yield* Effect.forkScoped(Effect.andThen(
      Deferred.await(options.draining),
      Effect.sync(() => {
        draining = true
        for (const connection of open) connection.finish()
      })
    ))
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        for (const connection of open) connection.finish()
      })
    )
    // One heartbeat for every stream. A body the server never started to write (its request was
    // abandoned after the answer was made) is let go after two.
    yield* Effect.sleep(options.heartbeat).pipe(
      Effect.andThen(Effect.sync(() => {
        for (const connection of open) {
          if (connection.readableFlowing === null && ++connection.unread > 2) connection.destroy()
          else connection.send(heartbeatBytes)
        }
      })),
      Effect.forever,
      Effect.forkScoped
    )

    const tooMany = new TooManyStreams({
      message: `This account holds ${options.maxPerAccount} open event streams, as many as it may on this server; `
        + "close one, or read JSON pages."
    })

    return {
      open: (accountId, follow) =>
        Effect.suspend((): Effect.Effect<
          HttpServerResponse.HttpServerResponse,
          TooManyStreams | UnknownJob | HistoryPruned | Unavailable
        > => {
          const count = perAccount.get(accountId) ?? 0
          if (count >= options.maxPerAccount) return Effect.fail(tooMany)
          perAccount.set(accountId, count + 1)
          const connection = new Connection((connection) => {
            open.delete(connection)
            const left = (perAccount.get(accountId) ?? 1) - 1
            if (left === 0) perAccount.delete(accountId)
            else perAccount.set(accountId, left)
          })
          open.add(connection)
          return feed.follow(accountId, follow, {
            deliver: (events) => connection.send(chunkOf(events)),
            ready: connection.ready,
            end: (error) => {
              if (error !== undefined) {
                // A store that fails ends the stream: the client resumes after the last id it received.
                Effect.runForkWith(services)(Effect.logWarning("event stream ended by its store", error))
              }
              connection.finish()
            }
          }).pipe(
            Effect.map((following) => {
              connection.follows(following)
              if (draining) connection.finish()
              return HttpServerResponse.raw(connection, {
                contentType: "text/event-stream",
                headers: { "cache-control": "no-store", "x-accel-buffering": "no" }
              })
            }),
            Effect.onError(() => Effect.sync(() => connection.destroy()))
          )
        })
    }
  })
