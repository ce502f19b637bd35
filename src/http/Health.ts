import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import { Waitlist } from "../services/waitlist/Waitlist.ts"

const alive = HttpServerResponse.jsonUnsafe({ status: "ok" })
const ready = HttpServerResponse.jsonUnsafe({ status: "ready" })
const notReady = HttpServerResponse.jsonUnsafe({ status: "unavailable" }, { status: 503 })

/**
 * For orchestrators: `GET /healthz` answers while the process serves at all; `GET /readyz` only while
 * the database is reachable (503 otherwise), so that traffic goes elsewhere meanwhile.
 */
export const HealthLive = Layer.mergeAll(
  HttpRouter.add("GET", "/healthz", alive),
  HttpRouter.add(
    "GET",
    "/readyz",
    Effect.flatMap(Waitlist, (waitlist) => waitlist.ready).pipe(
      Effect.as(ready),
      Effect.orElseSucceed(() => notReady)
    )
  )
)
