import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { Command } from "effect/cli"
import * as Cli from "./cli/Cli.ts"
import * as Database from "./services/Database.ts"
import * as Waitlist from "./services/Waitlist.ts"

const StoreLive = Waitlist.layerStore(Database.layerCommand)

Command.run(Cli.make(StoreLive), { version: "0.1.0" }).pipe(
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
