import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { HttpLive } from "./Server.ts"

/**
 * `JOBS_API`: `preview` serves the Job API and publishes it in the OpenAPI document; `off` (the
 * default) leaves both out, so that its paths answer as any unknown path does.
 */
export const JobsApiMode = Config.schema(Schema.Literals(["off", "preview"]), "JOBS_API").pipe(
  Config.withDefault("off" as const)
)

/**
 * `HttpLive`, or the preview's routes over the Job services when `JOBS_API=preview`. The preview is
 * loaded only then: with it off, neither its code nor the Job services are in memory, and no background
 * work runs.
 */
export const layer = <E, R>(preview: () => Promise<Layer.Layer<never, E, R>>) =>
  Layer.unwrap(
    Effect.flatMap(
      JobsApiMode,
      (
        mode
      ): Effect.Effect<Layer.Layer<never, E | Layer.Error<typeof HttpLive>, R | Layer.Services<typeof HttpLive>>> =>
        mode === "preview" ? Effect.promise(preview) : Effect.succeed(HttpLive)
    )
  )
