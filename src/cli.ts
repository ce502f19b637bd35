import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Command from "effect/cli/Command"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Cli from "./cli/Cli.ts"
import * as ApiKeysLive from "./services/access/ApiKeysLive.ts"
import * as SandboxLive from "./services/providers/SandboxLive.ts"
import * as Database from "./services/store/Database.ts"
import * as Migrations from "./services/store/Migrations.ts"
import * as WaitlistLive from "./services/waitlist/WaitlistLive.ts"

const StoreLive = Layer.mergeAll(WaitlistLive.layerLive, ApiKeysLive.layerLive, SandboxLive.layerLive).pipe(
  Layer.provide(Migrations.layer),
  Layer.provideMerge(Database.layerCommand)
)

Command.run(Cli.make(StoreLive), { version: "0.1.0" }).pipe(
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain
)
