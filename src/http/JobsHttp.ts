import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import type { HttpServerRequest } from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { InvalidRequest, NotFound } from "../schema/ApiErrors.ts"
import type { Job } from "../schema/Job.ts"
import { Job as JobSchema } from "../schema/Job.ts"
import type { ViewPoint } from "../schema/JobEvent.ts"
import type { JobId } from "../schema/JobRef.ts"
import { JobId as JobIdSchema } from "../schema/JobRef.ts"
import { ProposalHash } from "../schema/Proposal.ts"
import { ApprovalLinks } from "../services/jobs/ApprovalLinks.ts"
import { Jobs } from "../services/jobs/Jobs.ts"
import { Proposals } from "../services/jobs/Proposals.ts"
import { CurrentPrincipal } from "./Authentication.ts"
import { Draining } from "./Draining.ts"
import * as EventStream from "./EventStream.ts"
import { PreviewApi } from "./JobsApi.ts"
import * as PublicUrl from "./PublicUrl.ts"
import { StreamProcess } from "./StreamProcess.ts"
import { wire } from "./WireErrors.ts"

const defaultListLimit = 20
const defaultEventLimit = 100

const encodeJob = Schema.encodeSync(JobSchema)

const isJobId = Schema.is(JobIdSchema)
const isProposalHash = Schema.is(ProposalHash)

/**
 * A path that cannot name a Job (or a proposal) names none: 404 before any store is asked, since a
 * store may refuse such text (PostgreSQL refuses a NUL byte) as if it had failed.
 */
const named = (params: { readonly id: string; readonly hash?: string }) =>
  isJobId(params.id) && (params.hash === undefined || isProposalHash(params.hash))
    ? Effect.void
    : Effect.fail(new NotFound({ message: "No such resource for this account." }))

/** 201 with the Job and its `Location`. */
const created = (job: Job) =>
  HttpServerResponse.jsonUnsafe(encodeJob(job), { status: 201, headers: { location: `/v1/jobs/${job.id}` } })

/**
 * A proposal's exact bytes with its hash as the ETag, or 304 when `If-None-Match` names that ETag: as
 * the API and an approval page serve it.
 */
export const proposalAnswer = (bytes: string, hash: string, ifNoneMatch: string | undefined) => {
  const etag = `"${hash}"`
  return ifNoneMatch?.split(",").some((tag) => tag.trim() === etag) === true
    ? HttpServerResponse.empty({ status: 304, headers: { etag } })
    : HttpServerResponse.text(bytes, { contentType: "application/json", headers: { etag } })
}

/**
 * A cancellation takes no document: an empty body or `{}`. (`Idempotent` has read the body and found
 * it JSON; the platform keeps the bytes it read.)
 */
const noDocument = (request: HttpServerRequest) =>
  Effect.flatMap(Effect.orDie(request.text), (text) => {
    if (text === "") return Effect.void
    const document: unknown = JSON.parse(text)
    if (typeof document !== "object" || document === null || Array.isArray(document)) {
      return Effect.fail(new InvalidRequest({ message: "The body must be empty or a JSON object." }))
    }
    const [member] = Object.keys(document)
    return member === undefined ? Effect.void : Effect.fail(
      new InvalidRequest({ message: `${member} is not allowed here: a cancellation takes no document.` })
    )
  })

export const JobsHttpLive = HttpApiBuilder.group(PreviewApi, "Jobs", (handlers) =>
  Effect.gen(function*() {
    const jobs = yield* Jobs
    const proposals = yield* Proposals
    const links = yield* ApprovalLinks
    const publicUrl = yield* PublicUrl.make
    const draining = yield* Draining
    const streams = yield* EventStream.OpenStreams
    const handover = yield* StreamProcess
    if (handover !== undefined) yield* Effect.forkScoped(Effect.andThen(Deferred.await(draining), handover.drain))

    /**
     * The account's events (or one Job's) after the cursor: a JSON page, or with `Accept:
     * text/event-stream` a live stream, whose cursor and Job are checked before it begins.
     */
    const events = (
      request: HttpServerRequest,
      options: {
        readonly jobId: JobId | undefined
        readonly lastEventId: string | undefined
        readonly after: number | undefined
        readonly limit: number | undefined
      }
    ) =>
      Effect.gen(function*() {
        const principal = yield* CurrentPrincipal
        const after = yield* EventStream.cursorOf(options.lastEventId, options.after)
        if (EventStream.wantsEventStream(request.headers.accept)) {
          const response = NodeHttpServerRequest.toServerResponse(request)
          if (handover !== undefined && "chunkedEncoding" in response) {
            const follow = { jobId: options.jobId, after }
            return yield* wire(handover.handOver(
              principal.accountId,
              follow,
              response,
              jobs.eventPage(principal.accountId, { ...follow, limit: 1 })
            ))
          }
          return yield* wire(streams.open(
            principal.accountId,
            { jobId: options.jobId, after },
            "chunkedEncoding" in response ? response : undefined
          ))
        }
        const page = yield* wire(jobs.eventPage(principal.accountId, {
          jobId: options.jobId,
          after,
          limit: options.limit ?? defaultEventLimit
        }))
        return { data: page.events, nextAfter: page.events.at(-1)?.position ?? after }
      })

    return handlers
      .handle("createJob", ({ payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          jobs.create(principal.accountId, payload)).pipe(
            Effect.map(created)
          ))
      .handle("listJobs", ({ query }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          wire(jobs.list(principal.accountId, {
            status: query.status,
            limit: query.limit ?? defaultListLimit,
            cursor: query.cursor
          }))))
      .handle("getJob", ({ params, query }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          if (query.revision !== undefined && query.at !== undefined) {
            return yield* Effect.fail(new InvalidRequest({ message: "Give revision or at, not both." }))
          }
          yield* named(params)
          const point: ViewPoint | undefined = query.revision !== undefined
            ? { _tag: "Revision", revision: query.revision }
            : query.at !== undefined
            ? { _tag: "Position", position: query.at }
            : undefined
          return point === undefined
            ? yield* wire(jobs.get(principal.accountId, params.id))
            : yield* wire(jobs.view(principal.accountId, params.id, point))
        }))
      .handle("listJobEvents", ({ params, query, request }) =>
        Effect.andThen(
          named(params),
          events(request, {
            jobId: params.id,
            lastEventId: request.headers["last-event-id"],
            after: query.after,
            limit: query.limit
          })
        ))
      .handle("listEvents", ({ query, request }) =>
        events(request, {
          jobId: undefined,
          lastEventId: request.headers["last-event-id"],
          after: query.after,
          limit: query.limit
        }).pipe(
          // Only a Job can be unknown, and the account's events name none.
          Effect.catchIf((error) =>
            error instanceof NotFound, Effect.die)
        ))
      .handle("changeConstraints", ({ params, payload }) =>
        Effect.flatMap(
          CurrentPrincipal,
          (principal) =>
            Effect.andThen(named(params), wire(jobs.changeConstraints(principal.accountId, params.id, payload)))
        ))
      .handle("answerQuestions", ({ params, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Effect.andThen(named(params), wire(jobs.answer(principal.accountId, params.id, payload)))))
      .handle("cancelJob", ({ params, request }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* noDocument(request)
          yield* named(params)
          return yield* wire(jobs.cancel(principal.accountId, params.id))
        }))
      .handle("getProposal", ({ params, request }) =>
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          yield* named(params)
          const bytes = yield* wire(proposals.document(principal.accountId, params.id, params.hash))
          return proposalAnswer(bytes, params.hash, request.headers["if-none-match"])
        }))
      .handle("createApproval", ({ params, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Effect.andThen(named(params), wire(jobs.decide(principal, params.id, payload)))))
      .handle("createApprovalLink", ({ params, payload }) =>
        Effect.flatMap(CurrentPrincipal, (principal) =>
          Effect.andThen(named(params), wire(links.create(principal, params.id, payload)))).pipe(
            Effect.map(({ link, token }) => ({
              id: link.id,
              url: `${publicUrl}/approve/${Redacted.value(token)}`,
              jobId: link.jobId,
              jobRevision: link.jobRevision,
              proposalHash: link.proposalHash,
              expiresAt: link.expiresAt
            }))
          ))
  }))
