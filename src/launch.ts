import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"

/**
 * Runs a process's layer until it is stopped: the service (`src/main.ts`) and its stream process
 * (`src/streams.ts`). SIGTERM and SIGINT stop it gracefully (no new connections, requests in flight
 * finish, then the pool closes): that is a clean exit, not a failure.
 */
export const launch = <E>(layer: Layer.Layer<never, E>) =>
  NodeRuntime.runMain(Layer.launch(layer), {
    teardown: (exit, onExit) =>
      Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
  })
