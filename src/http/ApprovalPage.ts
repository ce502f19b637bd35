import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as ByteSize from "effect/ByteSize"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import type { HttpServerRequest } from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import type { TooManyStreams } from "../schema/ApiErrors.ts"
import {
  Forbidden,
  InvalidJsonBody,
  InvalidRequest,
  NotFound,
  ServiceUnavailableResponse
} from "../schema/ApiErrors.ts"
import { LinkDecision } from "../schema/ApprovalLink.ts"
import { InvalidJson, Unavailable } from "../schema/Errors.ts"
import { describeIssue } from "../schema/Job.ts"
import type { ProposalDocument } from "../schema/Proposal.ts"
import { Approval } from "../schema/Proposal.ts"
import { PositionText } from "../schema/Query.ts"
import { ApprovalLinks } from "../services/jobs/ApprovalLinks.ts"
import { Jobs } from "../services/jobs/Jobs.ts"
import { Proposals } from "../services/jobs/Proposals.ts"
import type { HistoryPruned, UnknownJob } from "../services/jobs/rules/JobErrors.ts"
import { storeRetryAfter } from "../services/store/StoreGuard.ts"
import { css, script } from "./ApprovalAssets.ts"
import type { Notice } from "./ApprovalPageHtml.ts"
import * as Html from "./ApprovalPageHtml.ts"
import * as EventStream from "./EventStream.ts"
import { proposalAnswer } from "./JobsHttp.ts"
import * as PublicUrl from "./PublicUrl.ts"
import * as RequestBody from "./RequestBody.ts"
import { StreamProcess } from "./StreamProcess.ts"
import { answer, answerWireError, answerWithHeaders, wire } from "./WireErrors.ts"

/**
 * The pages of approval links (docs/API.md, "Approval links"), served with the Job API preview and
 * without an API key: the link's token is the credential, and it reaches only its one Job and proposal.
 * Every answer is `no-store` and sends no referrer (the token is in the path), under a policy that runs
 * only the service's own script and style and lets no other site frame the page. Nothing here logs a
 * path: the request log writes these routes as templates (`RequestLog`).
 */

/** The headers of every answer under `/approve/`. */
const protectHeaders = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    + "img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY"
}

const protect = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeaders(response, protectHeaders)

const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
  protect(HttpServerResponse.text(body, { status, headers, contentType: "text/html; charset=utf-8" }))

const asset = (body: string, contentType: string) =>
  HttpServerResponse.text(body, {
    contentType,
    headers: { "cache-control": "public, max-age=300", "x-content-type-options": "nosniff" }
  })

/**
 * The form token a page embeds: a fresh nonce and its HMAC under the link's token. Only a page served
 * for the link has one, so a decision that carries it comes from the page (with `Referrer-Policy:
 * no-referrer` a browser may send `Origin: null` for the page's own form); nothing is stored for it.
 */
const mac = (token: string, nonce: string) =>
  createHmac("sha256", token).update(`approval-form:${nonce}`, "utf8").digest("base64url")

const newFormToken = (token: string) => {
  const nonce = randomBytes(16).toString("base64url")
  return `${nonce}.${mac(token, nonce)}`
}

const isFormToken = (token: string, form: unknown) => {
  if (typeof form !== "string") return false
  const [nonce, signature, ...rest] = form.split(".")
  if (nonce === undefined || nonce === "" || signature === undefined || rest.length > 0) return false
  const expected = Buffer.from(mac(token, nonce))
  const given = Buffer.from(signature)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/**
 * A decision sent from another site: `Sec-Fetch-Site: cross-site`, or an `Origin` that is neither the
 * service's public address nor the host the request was sent to. (`Origin: null` is what a browser
 * sends for the page's own form under `no-referrer`: the form token decides then.)
 */
const fromAnotherSite = (request: HttpServerRequest, publicOrigin: string) => {
  if (request.headers["sec-fetch-site"]?.toLowerCase() === "cross-site") return true
  const origin = request.headers.origin
  if (origin === undefined || origin === "null") return false
  try {
    const url = new URL(origin)
    return !(url.origin === publicOrigin || url.host === request.headers.host)
  } catch {
    return true
  }
}

const maxBody = RequestBody.limit(ByteSize.kibibytes(16))

/** The decision's fields, from the page's form (`application/x-www-form-urlencoded`) or from JSON. */
const fieldsOf = (request: HttpServerRequest, bytes: Uint8Array): Record<string, unknown> | undefined => {
  const text = new TextDecoder("utf-8", { fatal: true })
  try {
    if (RequestBody.isJson(request)) {
      const document: unknown = JSON.parse(text.decode(bytes))
      return typeof document === "object" && document !== null && !Array.isArray(document)
        ? document as Record<string, unknown>
        : undefined
    }
    const type = request.headers["content-type"]?.split(";")[0]?.trim().toLowerCase()
    if (type !== "application/x-www-form-urlencoded") return undefined
    const fields: Record<string, unknown> = {}
    for (const [name, value] of new URLSearchParams(text.decode(bytes))) fields[name] = value
    // An empty reason box is no reason.
    if (fields.reason === "") delete fields.reason
    return fields
  } catch {
    return undefined
  }
}

const decodeDecision = Schema.decodeUnknownResult(LinkDecision, { onExcessProperty: "ignore" })
const decodePosition = Schema.decodeUnknownResult(PositionText)
const encodeApproval = Schema.encodeSync(Approval)

const unknownLink = "This link is not one the service gave. Check that the whole link was copied, or ask for a new one."

const linkNotFound = new NotFound({ message: unknownLink })
const crossSite = new Forbidden({ message: "A decision can only be sent from its own page." })
const formOrJson = "Send the page's form, or a JSON object {decision, reason?, form}."
const notUnderstood = new InvalidJson({ message: formOrJson })
const notFromThePage = new Forbidden({
  message: "A decision must come from the link's page: open it and decide there."
})

export const ApprovalPageLive = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const links = yield* ApprovalLinks
    const jobs = yield* Jobs
    const proposals = yield* Proposals
    const publicOrigin = new URL(yield* PublicUrl.make).origin
    const streams = yield* EventStream.OpenStreams
    const handover = yield* StreamProcess

    /** Everything a page of the link shows, or none for a token that names no link. */
    const load = (token: string) =>
      Effect.gen(function*() {
        const found = yield* links.resolve(token)
        if (Option.isNone(found)) return Option.none()
        const link = found.value
        const events = yield* jobs.events(link.accountId, link.jobId)
        const job = yield* jobs.get(link.accountId, link.jobId)
        const bytes = yield* proposals.document(link.accountId, link.jobId, link.proposalHash)
        const now = yield* Clock.currentTimeMillis
        return Option.some({
          link,
          job,
          document: JSON.parse(bytes) as ProposalDocument,
          state: Html.stateOf(link, job, events, now),
          now,
          after: events.at(-1)?.position ?? 0
        })
      })

    const render = (token: string, status: number, notice?: Notice) =>
      Effect.map(load(token), (loaded) =>
        Option.isNone(loaded)
          ? html(Html.message("This link is not valid", [unknownLink]), 404)
          : html(Html.page({ ...loaded.value, token, form: newFormToken(token), notice }), status))

    /** A store that fails, or a bug (logged with its cause, never the token): 503, as everywhere else. */
    const guarded = <R>(
      name: string,
      unavailable: (retryAfter: number) => HttpServerResponse.HttpServerResponse,
      effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>
    ) =>
      effect.pipe(
        Effect.catch((error) =>
          error instanceof Unavailable
            ? Effect.succeed(unavailable(error.retryAfter))
            : Effect.logError(`${name} failed`, error).pipe(Effect.as(unavailable(storeRetryAfter)))
        ),
        Effect.catchDefect((defect) =>
          Effect.logError(`${name} failed`, Cause.die(defect)).pipe(Effect.as(unavailable(storeRetryAfter)))
        )
      )

    const pageUnavailable = (retryAfter: number) =>
      html(
        Html.message("Please try again in a moment", ["The service cannot show this page right now."]),
        503,
        { "retry-after": String(retryAfter) }
      )
    const jsonUnavailable = (retryAfter: number) =>
      protect(answerWithHeaders(
        ServiceUnavailableResponse,
        new Unavailable({ message: "The service cannot answer now; retry later.", retryAfter })
      ))

    const tokenOf = Effect.map(HttpRouter.params, (params) => params.token ?? "")

    yield* router.add("GET", "/assets/approval.css", asset(css, "text/css; charset=utf-8"))
    yield* router.add("GET", "/assets/approval.js", asset(script, "text/javascript; charset=utf-8"))

    yield* router.add(
      "GET",
      "/approve/:token",
      guarded("approval page", pageUnavailable, Effect.flatMap(tokenOf, (token) => render(token, 200)))
    )

    // The exact bytes the proposal hash names, as `GET /v1/jobs/{id}/proposals/{hash}` serves them.
    yield* router.add(
      "GET",
      "/approve/:token/proposal",
      (request) =>
        guarded(
          "approval proposal",
          jsonUnavailable,
          Effect.gen(function*() {
            const found = yield* links.resolve(yield* tokenOf)
            if (Option.isNone(found)) return protect(answer(NotFound, linkNotFound))
            const link = found.value
            const bytes = yield* proposals.document(link.accountId, link.jobId, link.proposalHash)
            return protect(proposalAnswer(bytes, link.proposalHash, request.headers["if-none-match"]))
          })
        )
    )

    // The Job's own events, live, as `GET /v1/jobs/{id}/events` streams them.
    yield* router.add("GET", "/approve/:token/events", (request) =>
      guarded(
        "approval events",
        jsonUnavailable,
        Effect.gen(function*() {
          const found = yield* links.resolve(yield* tokenOf)
          if (Option.isNone(found)) return protect(answer(NotFound, linkNotFound))
          const link = found.value
          const after = decodePosition(new URL(request.url, "http://service").searchParams.get("after") ?? "0")
          if (Result.isFailure(after)) {
            return protect(answer(
              InvalidRequest,
              new InvalidRequest({ message: "after must be a position: a whole number from 0." })
            ))
          }
          const cursor = yield* Effect.result(EventStream.cursorOf(request.headers["last-event-id"], after.success))
          if (Result.isFailure(cursor)) return protect(answer(InvalidRequest, cursor.failure))
          const follow = { jobId: link.jobId, after: cursor.success }
          const response = NodeHttpServerRequest.toServerResponse(request)
          const opened: Effect.Effect<
            HttpServerResponse.HttpServerResponse,
            TooManyStreams | HistoryPruned | UnknownJob | Unavailable
          > = handover !== undefined && "chunkedEncoding" in response
            ? handover.handOver(
              link.accountId,
              follow,
              response,
              jobs.eventPage(link.accountId, { ...follow, limit: 1 })
            )
            : streams.open(link.accountId, follow, "chunkedEncoding" in response ? response : undefined)
          return yield* wire(opened).pipe(Effect.catch((error) => Effect.map(answerWireError(error), protect)))
        })
      ))

    /**
     * A decision (docs/API.md, "Approval links"), checked in this order: 403 from another site; 404 for
     * a token that names no link; 400 for a body that is neither the form nor JSON; 403 without the
     * page's form token; 422 for a decision or reason that is not one; then the checks and codes of
     * `POST /v1/jobs/{id}/approvals`. The form is answered as a browser needs (303 back to the page, or
     * a page that says why not); JSON as the API answers (201 with the Approval, or the error).
     */
    yield* router.add("POST", "/approve/:token/decision", (request) => {
      const json = RequestBody.isJson(request)
      return guarded(
        "approval decision",
        json ? jsonUnavailable : pageUnavailable,
        Effect.gen(function*() {
          const token = yield* tokenOf
          /** The refusal as the API answers it, or for the form a page that says why (its message), with its status. */
          const refuse = (refusal: HttpServerResponse.HttpServerResponse, title: string, error: { message: string }) =>
            json ? protect(refusal) : html(Html.message(title, [error.message]), refusal.status)
          if (fromAnotherSite(request, publicOrigin)) return refuse(answer(Forbidden, crossSite), "Refused", crossSite)
          const found = yield* links.resolve(token)
          if (Option.isNone(found)) {
            return refuse(answer(NotFound, linkNotFound), "This link is not valid", linkNotFound)
          }
          const bytes = yield* RequestBody.read(request, maxBody)
          const fields = bytes === undefined ? undefined : fieldsOf(request, bytes)
          if (fields === undefined) {
            return refuse(answer(InvalidJsonBody, notUnderstood), "Not understood", notUnderstood)
          }
          if (!isFormToken(token, fields.form)) {
            return refuse(answer(Forbidden, notFromThePage), "Refused", notFromThePage)
          }
          const input = decodeDecision(fields)
          if (Result.isFailure(input)) {
            const invalid = new InvalidRequest({ message: describeIssue(input.failure.issue) })
            return refuse(answer(InvalidRequest, invalid), "Not understood", invalid)
          }
          const { decision, reason } = input.success
          const decided = yield* Effect.result(
            wire(links.decide(token, reason === undefined ? { decision } : { decision, reason }))
          )
          if (Result.isSuccess(decided)) {
            return json
              ? protect(HttpServerResponse.jsonUnsafe(encodeApproval(decided.success), { status: 201 }))
              : protect(HttpServerResponse.redirect(`/approve/${token}`, { status: 303 }))
          }
          // Not a refusal (a store that fails): `guarded` answers it.
          const failure = decided.failure
          const refusal = yield* answerWireError(failure)
          if (json) return protect(refusal)
          if (refusal.status === 404) return html(Html.message("This link is not valid", [unknownLink]), 404)
          return yield* render(token, refusal.status, {
            kind: "refused",
            alert: true,
            lines: [`Nothing was decided: ${Html.escape(failure.message)}`]
          })
        })
      )
    })
  })
)
