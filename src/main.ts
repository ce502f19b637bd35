import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Runtime from "effect/Runtime"
import * as JobsGate from "./http/JobsGate.ts"
import { NodeServerLive } from "./http/Server.ts"
import * as Database from "./services/store/Database.ts"
import * as Migrations from "./services/store/Migrations.ts"
import * as Waitlist from "./services/waitlist/Waitlist.ts"
import * as WaitlistLive from "./services/waitlist/WaitlistLive.ts"

const StoreLive = Migrations.layer.pipe(Layer.provideMerge(Database.layer))

const WaitlistServiceLive = Layer.merge(Waitlist.withPause(WaitlistLive.layerLive), Migrations.migrateOnStart)

// The store is built before the server listens: a request is never accepted before it can be served.
JobsGate.layer(() => import("./preview.ts").then((preview) => preview.PreviewLive)).pipe(
  Layer.provide(NodeServerLive),
  Layer.provide(WaitlistServiceLive),
  Layer.provide(StoreLive),
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
