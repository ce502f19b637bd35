import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type { Socket } from "node:net"
import * as EventStream from "./http/EventStream.ts"
import type { FromStreams, ToStreams } from "./http/StreamProcess.ts"
import { launch } from "./launch.ts"
import * as JobServices from "./services/jobs/JobServices.ts"
import * as Database from "./services/store/Database.ts"
import * as Migrations from "./services/store/Migrations.ts"

/**
 * The stream process (`StreamProcess`): the service process hands it the connections of event streams,
 * their head and `retry:` sent; it follows each account's events on PostgreSQL and writes them. It stops
 * when told to (`SIGTERM`) or when its parent is gone.
 */

const tell = (message: FromStreams) => {
  if (process.connected) process.send!(message)
}

const StreamsLive = Layer.effectDiscard(Effect.gen(function*() {
  const draining = yield* Deferred.make<void>()
  const streams = yield* EventStream.make({
    heartbeat: yield* EventStream.HeartbeatInterval,
    // The service process holds the limit: it counts what it hands over, and what ends here.
    maxPerAccount: Number.POSITIVE_INFINITY,
    draining
  })
  const run = Effect.runForkWith(yield* Effect.context<never>())

  const onMessage = (message: ToStreams, socket: Socket | undefined) => {
    if (message._tag === "Drain") return void run(Deferred.succeed(draining, undefined))
    if (socket === undefined) return tell({ _tag: "Ended", accountId: message.accountId })
    const ended = () => tell({ _tag: "Ended", accountId: message.accountId })
    run(
      streams.adopt(message.accountId, { jobId: message.jobId, after: message.after }, socket, ended).pipe(
        // Checked by the service process a moment ago; if it no longer holds (or the store fails), the
        // stream ends and its client, resuming, is answered there.
        Effect.catch((error) =>
          Effect.logWarning("a handed-over event stream could not start", error).pipe(
            Effect.andThen(Effect.sync(() => socket.destroy()))
          )
        )
      )
    )
  }
  yield* Effect.acquireRelease(
    Effect.sync(() => process.on("message", onMessage)),
    () => Effect.sync(() => process.off("message", onMessage))
  )
  // Streams end (their clients resume) before the pool closes.
  yield* Effect.addFinalizer(() => Deferred.succeed(draining, undefined))
  tell({ _tag: "Ready" })
}))

process.once("disconnect", () => process.kill(process.pid, "SIGTERM"))

StreamsLive.pipe(
  Layer.provide(JobServices.feedLayer),
  Layer.provide(Migrations.layer.pipe(Layer.provideMerge(Database.layer))),
  Layer.provide(Logger.layer([Logger.consoleJson])),
  launch
)
