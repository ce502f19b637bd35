import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Sse from "effect/encoding/Sse"
import * as Equal from "effect/Equal"
import * as Hash from "effect/Hash"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { Readable } from "node:stream"
import { InvalidRequest, TooManyStreams } from "../schema/ApiErrors.ts"
import type { AccountId } from "../schema/ApiKey.ts"
import { PositiveDuration } from "../schema/Duration.ts"
import type { Unavailable } from "../schema/Errors.ts"
import type { JobEvent } from "../schema/JobEvent.ts"
import { PositionText } from "../schema/Query.ts"
import { EventFeed } from "../services/jobs/EventFeed.ts"
import type { Following, FollowOptions } from "../services/jobs/EventFeed.ts"
import type { HistoryPruned, UnknownJob } from "../services/jobs/rules/JobErrors.ts"
import { Draining } from "./Draining.ts"

/**
 * Events as Server-Sent Events (docs/API.md, "Events and views"), written straight to each connection:
 * the feed hands every stream of an account the same events at once, they are encoded and framed once,
 * and the same buffer is written to every connection's socket. A stream holds no fiber, queue or timer
 * of its own: one heartbeat and one drain serve all of them.
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

/**
 * Bytes to send, as they are and framed as one HTTP/1.1 chunk (`size CRLF bytes CRLF`): a connection
 * written to directly takes the framed ones, so that every stream of an account is sent the very same
 * buffer, in one socket write each.
 */
interface Frame {
  readonly bytes: Buffer
  readonly chunk: Buffer
}

const frame = (bytes: Buffer): Frame => ({
  bytes,
  chunk: Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from("\r\n")])
})

/** A comment line: what keeps an idle connection (and every proxy on its way) open. */
const heartbeat = frame(Buffer.from(":\n\n"))

/** The last chunk of a chunked body: what ends a stream written to its socket directly. */
const lastChunk = Buffer.from("0\r\n\r\n")

/** `retry:`, the first bytes of every stream. */
export const retryBytes = retry

/** The head of every stream, besides what Node adds (its date and framing). */
export const streamHeaders = {
  "content-type": "text/event-stream",
  "cache-control": "no-store",
  "x-accel-buffering": "no",
  // A stream written by the stream process ends by closing its connection; every stream says so.
  connection: "close"
} as const

/**
 * Each event's text, and each delivery's bytes, made once however many streams carry them: the feed
 * hands the same objects to every stream of an account.
 */
const texts = new WeakMap<JobEvent, string>()
const frames = new WeakMap<ReadonlyArray<JobEvent>, Frame>()
const textOf = (event: JobEvent) => {
  let text = texts.get(event)
  if (text === undefined) texts.set(event, text = encodeEvent(event))
  return text
}
const frameOf = (events: ReadonlyArray<JobEvent>) => {
  let framed = frames.get(events)
  if (framed === undefined) frames.set(events, framed = frame(Buffer.from(events.map(textOf).join(""))))
  return framed
}

/** Bytes a connection may have waiting for its client before it is ended (the client resumes from there). */
const maxWaiting = 4 * 1024 * 1024

/**
 * One open stream: the body of its response, fed by the feed's deliveries. Once the response has sent
 * its head and everything given to it (`retry:` first), a stream over HTTP/1.1 is written straight to
 * its socket, each delivery one framed chunk, the response none the wiser; the response still ends it.
 */
class Connection extends Readable implements Equal.Equal {
  /**
   * Compared by identity: when its client goes away, the platform combines the causes it ends with by
   * hashing them, which would otherwise walk the stream into Node's response (and its deprecated
   * `_headers`, DEP0066, printed at every closed stream).
   */
  [Hash.symbol]() {
    return Hash.random(this)
  }
  [Equal.symbol](that: unknown) {
    return this === that
  }

  /** The socket, once it is written to directly. */
  private socket: Socket | undefined
  private following: Following | undefined
  /** The catch-up waiting for the client to take what it has. */
  private wakeCatchUp: (() => void) | undefined
  private ended = false
  /** Heartbeats seen while the server had not started writing the response (see `heartbeat`). */
  unread = 0

  private readonly release: (connection: Connection) => void
  private readonly response: ServerResponse | undefined
  /** Whether it was handed its socket with the head and `retry:` sent (by another process). */
  readonly handed: boolean

  constructor(release: (connection: Connection) => void, target: ServerResponse | Socket | undefined) {
    super({ highWaterMark: 64 * 1024 })
    this.release = release
    if (target === undefined || "chunkedEncoding" in target) {
      this.response = target
      this.handed = false
      this.push(retry)
    } else {
      this.response = undefined
      this.handed = true
      this.socket = target
      target.on("close", () => this.destroy())
      target.on("error", () => target.destroy())
      // A client does not send on its stream; one that closes its side has left.
      target.on("end", () => this.finish())
      target.resume()
    }
  }

  /** A body the server never started to write (its request was abandoned after the answer was made). */
  get abandoned() {
    return !this.handed && this.readableFlowing === null
  }

  /** The socket, when nothing the response was given waits to reach it and it frames chunks. */
  private direct() {
    if (this.socket !== undefined) return this.socket
    const response = this.response
    if (
      response === undefined || !response.headersSent || response.chunkedEncoding !== true
      || this.readableLength > 0 || response.writableNeedDrain || response.socket === null
      || response.writableLength !== response.socket.writableLength
    ) return undefined
    return this.socket = response.socket
  }

  override _read() {
    const wake = this.wakeCatchUp
    this.wakeCatchUp = undefined
    wake?.()
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    this.ended = true
    this.following?.close()
    if (this.handed) this.socket?.destroy()
    this.release(this)
    callback(error)
  }

  /** What feeds it, closed when it ends (at once if it has ended already). */
  follows(following: Following) {
    this.following = following
    if (this.ended) following.close()
  }

  send(frame: Frame) {
    if (this.ended) return
    const socket = this.direct()
    // A client this far behind is ended rather than held in memory: it resumes after what it has.
    if ((socket?.writableLength ?? this.readableLength) > maxWaiting) return this.finish()
    if (socket === undefined) this.push(frame.bytes)
    else socket.write(frame.chunk)
  }

  /** Ends the stream after what it has already been given. */
  finish() {
    if (this.ended) return
    this.ended = true
    this.following?.close()
    if (this.handed) this.socket?.end(lastChunk)
    else this.push(null)
  }

  readonly ready = Effect.callback<void>((resume) => {
    const socket = this.direct()
    if (socket !== undefined) {
      if (this.ended || !socket.writableNeedDrain) resume(Effect.void)
      else socket.once("drain", () => resume(Effect.void))
    } else if (this.ended || this.readableLength < this.readableHighWaterMark) resume(Effect.void)
    else this.wakeCatchUp = () => resume(Effect.void)
  })
}

/** 429 `too_many_streams`: the account holds `max` open streams on this server. */
export const tooManyStreams = (max: number) =>
  new TooManyStreams({
    message: `This account holds ${max} open event streams, as many as it may on this server; `
      + "close one, or read JSON pages."
  })

/**
 * Open streams counted per account, at most `max` each: this process's streams (`make`), or those it
 * has handed to its stream process (`StreamProcess`).
 */
export const accountLimit = (max: number) => {
  const counts = new Map<AccountId, number>()
  return {
    /** Holds a place for one more stream of the account; `false` when it holds `max` already. */
    take: (accountId: AccountId): boolean => {
      const count = counts.get(accountId) ?? 0
      if (count >= max) return false
      counts.set(accountId, count + 1)
      return true
    },
    release: (accountId: AccountId) => {
      const left = (counts.get(accountId) ?? 1) - 1
      if (left <= 0) counts.delete(accountId)
      else counts.set(accountId, left)
    },
    clear: () => counts.clear()
  }
}

type StreamError = TooManyStreams | UnknownJob | HistoryPruned | Unavailable

export interface Streams {
  /** A stream answered by this process's router: its response, or why it cannot start. */
  readonly open: (
    accountId: AccountId,
    follow: FollowOptions,
    response: ServerResponse | undefined
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, StreamError>
  /**
   * A stream whose head and `retry:` another process has sent on `socket` (see `StreamProcess`),
   * followed from here until it ends (`onEnd`, once).
   */
  readonly adopt: (
    accountId: AccountId,
    follow: FollowOptions,
    socket: Socket,
    onEnd: () => void
  ) => Effect.Effect<void, StreamError>
}

/**
 * The process's event streams: at most `maxPerAccount` open per account, each a `Connection`, every one
 * ended when `draining` is set.
 */
export const make = (options: {
  readonly heartbeat: Duration.Duration
  readonly maxPerAccount: number
  readonly draining: Deferred.Deferred<void>
}): Effect.Effect<Streams, never, EventFeed | Scope.Scope> =>
  Effect.gen(function*() {
    const feed = yield* EventFeed
    const services = yield* Effect.context<never>()
    const open = new Set<Connection>()
    const limit = accountLimit(options.maxPerAccount)
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
          if (connection.abandoned && ++connection.unread > 2) connection.destroy()
          else connection.send(heartbeat)
        }
      })),
      Effect.forever,
      Effect.forkScoped
    )

    const tooMany = tooManyStreams(options.maxPerAccount)
    const { "content-type": contentType, ...headers } = streamHeaders

    const attach = (
      accountId: AccountId,
      follow: FollowOptions,
      target: ServerResponse | Socket | undefined,
      onEnd?: () => void
    ) =>
      Effect.suspend((): Effect.Effect<Connection, StreamError> => {
        if (!limit.take(accountId)) return Effect.fail(tooMany)
        const connection = new Connection((connection) => {
          open.delete(connection)
          limit.release(accountId)
          onEnd?.()
        }, target)
        open.add(connection)
        return feed.follow(accountId, follow, {
          deliver: (events) => connection.send(frameOf(events)),
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
            return connection
          }),
          Effect.onError(() => Effect.sync(() => connection.destroy()))
        )
      })

    return {
      open: (accountId, follow, response) =>
        Effect.map(attach(accountId, follow, response), (connection) =>
          HttpServerResponse.raw(connection, { contentType, headers })),
      adopt: (accountId, follow, socket, onEnd) =>
        Effect.asVoid(attach(accountId, follow, socket, onEnd))
    } satisfies Streams
  })

/**
 * The process's open streams: one set, one heartbeat and one count per account for every route that
 * streams (`/v1/...events` and an approval page's `/approve/{token}/events`).
 */
export class OpenStreams extends Context.Service<OpenStreams, Streams>()("OpenStreams") {}

export const layer = Layer.effect(OpenStreams)(Effect.gen(function*() {
  return yield* make({
    heartbeat: yield* HeartbeatInterval,
    maxPerAccount: yield* MaxStreamsPerAccount,
    draining: yield* Draining
  })
}))

/**
 * Where a reader resumes: `Last-Event-ID` (what an SSE client sends when it reconnects, so the newer of
 * the two) wins over `after`; neither is 0, the oldest event kept. The header is held to its pattern.
 */
export const cursorOf = (lastEventId: string | undefined, after: number | undefined) => {
  if (lastEventId === undefined) return Effect.succeed(after ?? 0)
  const position = decodePosition(lastEventId)
  return position._tag === "Success"
    ? Effect.succeed(position.success)
    : Effect.fail(
      new InvalidRequest({
        message: `Last-Event-ID must be a position: digits only, a whole number from 0 to ${Number.MAX_SAFE_INTEGER}.`
      })
    )
}

const decodePosition = Schema.decodeUnknownResult(PositionText)
