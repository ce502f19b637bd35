import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { fork } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { writeFileSync } from "node:fs"
import type { ServerResponse } from "node:http"
import type { Socket } from "node:net"
import { setPriority } from "node:os"
import { extname } from "node:path"
import { fileURLToPath } from "node:url"
import type { TooManyStreams } from "../schema/ApiErrors.ts"
import type { AccountId } from "../schema/ApiKey.ts"
import { Unavailable } from "../schema/Errors.ts"
import type { FollowOptions } from "../services/jobs/EventFeed.ts"
import { DatabaseConfig } from "../services/store/Database.ts"
import { accountLimit, MaxStreamsPerAccount, retryBytes, streamHeaders, tooManyStreams } from "./EventStream.ts"

/**
 * Event streams served by a process of their own (docs/PERFORMANCE.md, "Event streams"): writing each
 * delivery to 1,000 sockets takes about 10 ms of CPU, and on the process that answers the writers it
 * delayed every request that arrived meanwhile. This process authenticates a stream's request, checks its
 * cursor and the account's limit, sends the head and `retry:`, then hands the connection's socket to the
 * stream process (`child.send(message, socket)`, as `node:cluster` hands connections to its workers),
 * which follows the account's events on PostgreSQL (its `NOTIFY` wakes every process) and writes them.
 * The stream process tells this one when a stream ends, so that the limit per account holds here.
 */

/** Parent to stream process. */
export type ToStreams =
  | {
    readonly _tag: "Stream"
    readonly accountId: AccountId
    readonly jobId: FollowOptions["jobId"]
    readonly after: number
  }
  | { readonly _tag: "Drain" }

/** Stream process to parent. */
export type FromStreams =
  | { readonly _tag: "Ready" }
  | { readonly _tag: "Ended"; readonly accountId: AccountId }

export interface Handover {
  /**
   * Answers a stream's request from the stream process: 429 `too_many_streams` beyond the account's
   * limit, `check`'s error when the cursor or the Job is refused, otherwise the head and `retry:` are sent
   * and the connection leaves this process.
   */
  readonly handOver: <E>(
    accountId: AccountId,
    follow: FollowOptions,
    response: ServerResponse,
    check: Effect.Effect<void, E>
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, TooManyStreams | Unavailable | E>
  /** Ends every stream (the service is stopping); their clients resume elsewhere. */
  readonly drain: Effect.Effect<void>
}

/** The stream process of this service process, when it has one. */
export const StreamProcess = Context.Reference<Handover | undefined>("StreamProcess", {
  defaultValue: () => undefined
})

/** `EVENTS_STREAM_PROCESS` (true): serve event streams from a process of their own, on PostgreSQL. */
export const Enabled = Config.Boolean("EVENTS_STREAM_PROCESS").pipe(Config.withDefault(true))

/** The stream process's entry point, next to this module's (`.ts` in the sources, `.js` once built). */
const entry = fileURLToPath(new URL(`../streams${extname(fileURLToPath(import.meta.url))}`, import.meta.url))

/** Connections of the stream process's pool: it reads history and each account's new events. */
const poolSize = 4

/** The stream process's scheduling priority: lower than the service's (0). */
const niceness = 10

/**
 * Writers first: on a busy machine the scheduler gives the service's requests (and the database) the CPU
 * before the streams' writes, which only delays deliveries a little. The stream process runs in a session
 * of its own (`detached`), and where Linux groups processes by session (autogroup, on by default for
 * processes outside a CPU cgroup: a shell, a terminal) that group competes with the service's as an equal
 * whatever its processes' niceness, so the group is given the same niceness (`/proc/<pid>/autogroup`).
 * Lowered once it is ready: its start (a second of CPU) is not held back behind a busy machine's work,
 * where a stream's request waits for it only `startWait`.
 */
const lowerPriority = (pid: number) => {
  try {
    setPriority(pid, niceness)
  } catch {
    // Not allowed here: the streams compete as equals.
  }
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(niceness))
  } catch {
    // Not Linux, or no autogroups: the niceness alone orders the processes.
  }
}

/** How long a stream's request waits for the stream process to be ready. */
const startWait = Duration.seconds(5)

/** How long stopping waits for the stream process to end its streams and exit. */
const stopGrace = 5_000

/**
 * The node flags of this process for the stream process. With an inspector, the stream process gets one
 * on the next port (as `node:cluster` does for its workers).
 */
const execArgv = () =>
  process.execArgv.some((arg) => arg.startsWith("--inspect"))
    ? [...process.execArgv, `--inspect-port=${process.debugPort + 1}`]
    : process.execArgv

const unavailable = new Unavailable({ message: "Event streams are starting; retry shortly.", retryAfter: 1 })

/**
 * Forks the stream process (again whenever it exits unexpectedly) and hands it streams; on stopping, it
 * is told to end them, then to exit.
 */
export const make = Effect.gen(function*() {
  const maxPerAccount = yield* MaxStreamsPerAccount
  const services = yield* Effect.context<never>()
  const limit = accountLimit(maxPerAccount)
  let child: ChildProcess | undefined
  let ready = false
  let becameReady = Promise.withResolvers<void>()
  let stopping = false

  const start = () => {
    const forked = fork(entry, [], {
      execArgv: execArgv(),
      env: { ...process.env, DB_POOL_SIZE: String(poolSize), EVENTS_STREAM_PROCESS: "false" },
      // A process group of its own: a terminal's Ctrl-C stops the service, which then stops it.
      detached: true,
      serialization: "json"
    })
    child = forked
    ready = false
    forked.on("message", (message: FromStreams) => {
      if (message._tag === "Ended") return limit.release(message.accountId)
      if (!ready && forked.pid !== undefined) lowerPriority(forked.pid)
      ready = true
      becameReady.resolve()
      becameReady = Promise.withResolvers<void>()
    })
    forked.on("error", () => undefined)
    forked.once("disconnect", () => {
      if (child === forked) ready = false
    })
    forked.once("exit", (code, signal) => {
      if (child === forked) child = undefined
      // Its streams ended with it: their clients resume, and count again.
      limit.clear()
      if (stopping) return
      Effect.runForkWith(services)(
        Effect.logWarning("the event stream process exited; starting another", { code, signal })
      )
      setTimeout(() => {
        if (!stopping) start()
      }, 1000).unref()
    })
  }

  yield* Effect.acquireRelease(
    Effect.sync(start),
    () =>
      Effect.callback<void>((resume) => {
        stopping = true
        const running = child
        if (running === undefined || running.exitCode !== null || running.signalCode !== null) {
          return resume(Effect.void)
        }
        const timer = setTimeout(() => running.kill("SIGKILL"), stopGrace)
        running.once("exit", () => {
          clearTimeout(timer)
          resume(Effect.void)
        })
        running.kill("SIGTERM")
      })
  )

  const send = (message: ToStreams, socket?: Socket) =>
    new Promise<boolean>((resolve) => {
      const running = child
      if (running === undefined || !running.connected) return resolve(false)
      running.send(message, socket, { keepOpen: true }, (error) => resolve(error === null))
    })

  const handOver: Handover["handOver"] = (accountId, follow, response, check) =>
    Effect.gen(function*() {
      // A stream that arrives while the stream process starts waits for it, a little.
      if (!ready) yield* Effect.timeoutOption(Effect.promise(() => becameReady.promise), startWait)
      if (!ready) return yield* Effect.fail(unavailable)
      // Its place is held while the cursor is checked, so that concurrent requests cannot pass the limit.
      if (!limit.take(accountId)) return yield* Effect.fail(tooManyStreams(maxPerAccount))
      yield* Effect.onError(check, () => Effect.sync(() => limit.release(accountId)))
      const socket = response.socket
      if (socket === null || response.destroyed) {
        limit.release(accountId)
        return HttpServerResponse.empty()
      }
      response.writeHead(200, streamHeaders)
      // Answered once the connection has left: this process's response is then destroyed, and the
      // router writes nothing more.
      return yield* Effect.callback<HttpServerResponse.HttpServerResponse>((resume) => {
        const done = (sent: boolean) => {
          if (!sent) limit.release(accountId)
          // This process's copy of the connection: closing it leaves the stream process's open.
          response.destroy()
          resume(Effect.succeed(HttpServerResponse.empty()))
        }
        response.write(retryBytes, (error) => {
          if (error !== null && error !== undefined) return done(false)
          void send({ _tag: "Stream", accountId, jobId: follow.jobId, after: follow.after }, socket).then(done)
        })
      })
    })

  return {
    handOver,
    drain: Effect.promise(() => send({ _tag: "Drain" })).pipe(Effect.asVoid)
  } satisfies Handover
})

/**
 * `StreamProcess` with a process of its own on PostgreSQL, unless `EVENTS_STREAM_PROCESS=false`; the
 * embedded database (one process) and the in-memory stores serve streams in process.
 */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const { url } = yield* DatabaseConfig
  const enabled = yield* Enabled
  return enabled && Option.isSome(url)
    ? Layer.effect(StreamProcess)(make)
    : Layer.empty
}))
