import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import { InvalidEmail, InvalidJsonResponse, UnavailableResponse } from "../schema/Errors.ts"
import { Joined, JoinRequest } from "../schema/Waitlist.ts"

/**
 * `POST /v1/waitlist` (docs/API.md, "The waitlist"). The payload schema describes the document for the
 * OpenAPI document and the client; the server reads the raw body itself (see `WaitlistHttp.ts`),
 * because the contract fixes which error each kind of bad body gets.
 */
export const joinWaitlist = HttpApiEndpoint.post("joinWaitlist", "/v1/waitlist", {
  payload: JoinRequest,
  success: Joined,
  error: [InvalidJsonResponse, InvalidEmail, UnavailableResponse]
}).annotateMerge(OpenApi.annotations({
  identifier: "joinWaitlist",
  summary: "Register an e-mail address for early access",
  description: "Answers the same 200 for a new and for an already registered address."
}))

export class WaitlistApi extends HttpApiGroup.make("Waitlist").add(joinWaitlist) {}

export class Api extends HttpApi.make("request-coordination").add(WaitlistApi).annotateMerge(OpenApi.annotations({
  title: "Request-Coordination Service",
  version: "1.0.0"
})) {}
