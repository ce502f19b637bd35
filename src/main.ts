import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { HttpLive, NodeServerLive } from "./http/Server.ts"
import * as Database from "./services/Database.ts"
import * as Migrations from "./services/Migrations.ts"
import * as Waitlist from "./services/Waitlist.ts"

const WaitlistLive = Layer.merge(Waitlist.withPause(Waitlist.layerLive), Migrations.migrateOnStart).pipe(
  Layer.provide(Migrations.layer),
  Layer.provide(Database.layer)
)

HttpLive.pipe(
  Layer.provide(WaitlistLive),
  Layer.provide(NodeServerLive),
  Layer.launch,
  NodeRuntime.runMain
)
