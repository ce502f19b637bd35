import { Config, Effect, Layer, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import type { ApiKeys } from "../services/access/ApiKeys.ts"
import type { Idempotency } from "../services/access/Idempotency.ts"
import type { EventFeed } from "../services/events/EventFeed.ts"
import type { Approvals } from "../services/jobs/Approvals.ts"
import type { Jobs } from "../services/jobs/Jobs.ts"
import type { Proposals } from "../services/jobs/Proposals.ts"
import * as AuthenticationHttp from "./AuthenticationHttp.ts"
import * as Draining from "./Draining.ts"
import { PreviewApi } from "./JobsApi.ts"
import { JobsHttpLive } from "./JobsHttp.ts"
import { GuardedLive, IdempotentLive, RequestDecodingLive } from "./JobsMiddlewareHttp.ts"
import { docsOptions, HttpLive, OtherRoutesLive, serveOptions } from "./Server.ts"
import { WaitlistHttpLive } from "./WaitlistHttp.ts"

/**
 * `JOBS_API`: `preview` serves the Job API and publishes it in the OpenAPI document; `off` (the
 * default) leaves both out, so that its paths answer as any unknown path does.
 */
export const JobsApiMode = Config.schema(Schema.Literals(["off", "preview"]), "JOBS_API").pipe(
  Config.withDefault("off" as const)
)

/** Every route of `HttpLive`, with the Job API in the API and in its documents. */
export const PreviewRoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(PreviewApi, { openapiPath: "/openapi.json" }).pipe(
    Layer.provide(WaitlistHttpLive),
    Layer.provide(JobsHttpLive),
    Layer.provide([AuthenticationHttp.AuthenticationLive, GuardedLive, IdempotentLive, RequestDecodingLive])
  ),
  HttpApiScalar.layer(PreviewApi, docsOptions),
  OtherRoutesLive
)

/** Event streams end as the service begins to stop (see `Draining`). */
export const PreviewHttpLive = Draining.drained(HttpRouter.serve(PreviewRoutesLive, serveOptions))

/**
 * `HttpLive`, or `PreviewHttpLive` over `jobs` when `JOBS_API=preview`. With the preview off, the Job
 * services are not built at all (no background work runs).
 */
export const layer = <E, R>(
  jobs: Layer.Layer<Jobs | Proposals | Approvals | Idempotency | ApiKeys | EventFeed, E, R>
) =>
  Layer.unwrap(
    Effect.map(JobsApiMode, (mode) => mode === "preview" ? PreviewHttpLive.pipe(Layer.provide(jobs)) : HttpLive)
  )
