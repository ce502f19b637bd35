import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http"
import { InvalidEmail, InvalidJson, InvalidJsonResponse, Unavailable, UnavailableResponse } from "../schema/Errors.ts"
import { decodeJoinDocument } from "../schema/Waitlist.ts"
import { retryAfter, Waitlist } from "../services/waitlist/Waitlist.ts"
import { joinWaitlist } from "./Api.ts"
import * as RequestBody from "./RequestBody.ts"
import { AllowedOrigins, joinedBody, maxBody } from "./WaitlistHttp.ts"

/**
 * A route served by the Node server before Effect's router: it answers the request and returns
 * `true`, or returns `false` and the router serves it.
 */
export type NodeRoute = (request: IncomingMessage, response: ServerResponse) => boolean

/** An answer prepared once: its status, headers and body never vary. */
interface Answer {
  readonly status: number
  readonly headers: OutgoingHttpHeaders
  readonly body: string
}

const prepare = (status: number, body: string, headers: OutgoingHttpHeaders = {}): Answer => ({
  status,
  headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers },
  body
})

// Every answer, encoded from the contract's schemas as the HttpApi encodes them for the same endpoint
// (test/WaitlistHttp.test.ts compares the two paths byte for byte).
const answers = {
  joined: prepare(200, joinedBody),
  InvalidJson: prepare(400, JSON.stringify(Schema.encodeSync(InvalidJsonResponse)(new InvalidJson()))),
  InvalidEmail: prepare(422, JSON.stringify({ error: "invalid_email" } satisfies typeof InvalidEmail.Encoded)),
  Unavailable: new Map<number, Answer>(
    Object.values(retryAfter).map((seconds) => {
      const { body, headers } = Schema.encodeSync(UnavailableResponse)(new Unavailable({ retryAfter: seconds }))
      return [seconds, prepare(503, JSON.stringify(body), headers)] as const
    })
  )
}

const unavailable = (error: Unavailable): Answer =>
  answers.Unavailable.get(error.retryAfter) ?? prepare(503, JSON.stringify({ error: "unavailable" }), {
    "retry-after": String(error.retryAfter)
  })

const path = joinWaitlist.path

/** `/v1/waitlist`, with or without a query string: as the router matches it. */
const isJoinPath = (url: string | undefined) =>
  url === path || (url !== undefined && url.startsWith(path) && url.charCodeAt(path.length) === 63 /* ? */)

/**
 * `POST /v1/waitlist` as the landing page sends it, answered by the Node server directly: the body
 * read with two listeners, decoded by the contract's decoder, and the join run as an Effect program
 * whose typed failures are the contract's answers. It serves the same endpoint as `WaitlistHttpLive`,
 * without the router's per-request work (a request object, a fiber with its context, the response's
 * conversion): that work was most of the CPU of a join (docs/PERFORMANCE.md).
 *
 * Requests the handler treats specially go to the router instead, where `WaitlistHttpLive` answers
 * them: a body with no `Content-Length` (chunked) or declaring more than the limit, and `Expect`.
 */
export const make = Effect.gen(function*() {
  const waitlist = yield* Waitlist
  const origins = yield* AllowedOrigins
  const services = yield* Effect.context<never>()
  const run = Effect.runCallbackWith(services)

  // A defect is a bug, not an answer: logged with its cause, answered with the contract's catch-all.
  const storeFailure = unavailable(new Unavailable({ retryAfter: retryAfter.storeFailure }))
  const answerOf = (exit: Exit.Exit<void, Unavailable>): Answer => {
    if (Exit.isSuccess(exit)) return answers.joined
    const error = Cause.findError(exit.cause)
    if (Result.isSuccess(error)) return unavailable(error.success)
    run(Effect.logError("joinWaitlist failed", exit.cause))
    return storeFailure
  }

  const route: NodeRoute = (request, response) => {
    const headers = request.headers
    const declared = headers["content-length"]
    if (
      request.method !== "POST" || !isJoinPath(request.url) || declared === undefined
      || headers.expect !== undefined || Number(declared) > maxBody.bytes
    ) return false

    const origin = headers.origin
    const allowed = origin !== undefined && origins.has(origin) ? origin : undefined
    const send = ({ body, headers, status }: Answer) => {
      if (response.destroyed) return
      response.writeHead(
        status,
        allowed === undefined ? headers : { ...headers, "access-control-allow-origin": allowed, vary: "Origin" }
      ).end(body)
    }

    if (!RequestBody.isJsonType(headers["content-type"])) {
      send(answers.InvalidJson)
      return true
    }
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => void chunks.push(chunk))
    request.on("end", () => {
      const email = decodeJoinDocument(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
      if (Result.isFailure(email)) {
        return send(email.failure instanceof InvalidEmail ? answers.InvalidEmail : answers.InvalidJson)
      }
      run(waitlist.join(email.success), { onExit: (exit) => send(answerOf(exit)) })
    })
    return true
  }
  return route
})
