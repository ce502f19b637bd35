import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Exit, Layer, Logger, Runtime } from "effect"
import { HttpLive, NodeServerLive } from "./http/Server.ts"
import * as Database from "./services/Database.ts"
import * as Migrations from "./services/Migrations.ts"
import * as Waitlist from "./services/Waitlist.ts"

const WaitlistLive = Layer.merge(Waitlist.withPause(Waitlist.layerLive), Migrations.migrateOnStart).pipe(
  Layer.provide(Migrations.layer),
  Layer.provide(Database.layer)
)

// The store is built before the server listens: a request is never accepted before it can be served.
HttpLive.pipe(
  Layer.provide(NodeServerLive),
  Layer.provide(WaitlistLive),
  Layer.provide(Logger.layer([Logger.consoleJson])),
  Layer.launch,
  // SIGTERM and SIGINT stop the service gracefully (no new connections, requests in flight finish,
  // then the pool closes): that is a clean exit, not a failure.
  (main) =>
    NodeRuntime.runMain(main, {
      teardown: (exit, onExit) =>
        Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
    })
)
