import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpApiScalar from "effect/http-api/HttpApiScalar"
import * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import { ApprovalPageLive } from "./ApprovalPage.ts"
import * as AuthenticationHttp from "./AuthenticationHttp.ts"
import * as Draining from "./Draining.ts"
import * as EventStream from "./EventStream.ts"
import { PreviewApi } from "./JobsApi.ts"
import { JobsFallbackLive } from "./JobsFallback.ts"
import { JobsHttpLive } from "./JobsHttp.ts"
import { GuardedLive, IdempotentLive, NoQueryLive, RequestDecodingLive } from "./JobsMiddlewareHttp.ts"
import { docsOptions, OtherRoutesLive, serveOptions } from "./Server.ts"
import { WaitlistHttpLive } from "./WaitlistHttp.ts"

/** Every route of `HttpLive`, with the Job API in the API and in its documents. */
export const PreviewRoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(PreviewApi, { openapiPath: "/openapi.json" }).pipe(
    Layer.provide(WaitlistHttpLive),
    Layer.provide(JobsHttpLive),
    Layer.provide([
      AuthenticationHttp.AuthenticationLive,
      GuardedLive,
      IdempotentLive,
      NoQueryLive,
      RequestDecodingLive
    ])
  ),
  HttpApiScalar.layer(PreviewApi, docsOptions),
  OtherRoutesLive,
  ApprovalPageLive,
  JobsFallbackLive
).pipe(Layer.provide(EventStream.layer))

/** Event streams end as the service begins to stop (see `Draining`). */
export const PreviewHttpLive = Draining.drained(HttpRouter.serve(PreviewRoutesLive, serveOptions))
