import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Cli from "./cli/Cli.ts"
import * as SqlApiKeys from "./services/access/SqlApiKeys.ts"
import * as SqlSandbox from "./services/providers/SqlSandbox.ts"
import * as Database from "./services/store/Database.ts"
import * as Migrations from "./services/store/Migrations.ts"
import * as SqlWaitlist from "./services/waitlist/SqlWaitlist.ts"

const StoreLive = Layer.mergeAll(SqlWaitlist.layer, SqlApiKeys.layer, SqlSandbox.layer).pipe(
  Layer.provide(Migrations.layer),
  Layer.provideMerge(Database.layerCommand)
)

Command.run(Cli.make(StoreLive), { version: "0.1.0" }).pipe(
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
