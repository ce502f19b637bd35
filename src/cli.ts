import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { Command } from "effect/cli"
import * as Cli from "./cli/Cli.ts"
import * as ApiKeysLive from "./services/access/ApiKeysLive.ts"
import * as Sandbox from "./services/providers/Sandbox.ts"
import * as Database from "./services/store/Database.ts"
import * as Migrations from "./services/store/Migrations.ts"
import * as Waitlist from "./services/waitlist/Waitlist.ts"

const StoreLive = Layer.mergeAll(Waitlist.layerLive, ApiKeysLive.layerLive, Sandbox.layerLive).pipe(
  Layer.provide(Migrations.layer),
  Layer.provideMerge(Database.layerCommand)
)

Command.run(Cli.make(StoreLive), { version: "0.1.0" }).pipe(
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
