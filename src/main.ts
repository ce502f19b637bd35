import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as JobsGate from "./http/JobsGate.ts"
import { NodeServerLive } from "./http/Server.ts"
import { launch } from "./launch.ts"
import * as Database from "./services/store/Database.ts"
import * as Migrations from "./services/store/Migrations.ts"
import * as SqlWaitlist from "./services/waitlist/SqlWaitlist.ts"
import * as Waitlist from "./services/waitlist/Waitlist.ts"

const StoreLive = Migrations.layer.pipe(Layer.provideMerge(Database.layer))

const WaitlistServiceLive = Layer.merge(Waitlist.withPause(SqlWaitlist.layer), Migrations.migrateOnStart)

// The store is built before the server listens: a request is never accepted before it can be served.
JobsGate.layer(() => import("./preview.ts").then((preview) => preview.PreviewLive)).pipe(
  Layer.provide(NodeServerLive),
  Layer.provide(WaitlistServiceLive),
  Layer.provide(StoreLive),
  Layer.provide(Logger.layer([Logger.consoleJson])),
  launch
)
