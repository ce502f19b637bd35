import canonicalize from "canonicalize"
import { ByteSize, Cause, Config, Deferred, Duration, Effect, Result, Stream } from "effect"
import { HttpIncomingMessage, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { HttpServerRequest } from "effect/http/HttpServerRequest"
import { createHash } from "node:crypto"
import {
  CursorExpired,
  IdempotencyKeyInUse,
  IdempotencyKeyRequired,
  InvalidJsonBody,
  InvalidRequest,
  InvalidState,
  NotFound,
  ProposalExpired,
  ProposalMismatch,
  RevisionMismatch,
  ServiceUnavailable
} from "../schema/ApiErrors.ts"
import { IdempotencyKeyReused } from "../schema/ApiErrors.ts"
import type { JobError } from "../schema/ApiErrors.ts"
import type { Principal } from "../schema/ApiKey.ts"
import { Unavailable } from "../schema/Errors.ts"
import type { Job, JobStatus } from "../schema/Job.ts"
import {
  AnswerQuestionsRequest,
  CancelJobRequest,
  ChangeConstraintsRequest,
  CreateJobRequest,
  decodeDocument,
  jobStatuses
} from "../schema/Job.ts"
import type { JobEvent, ViewPoint } from "../schema/JobEvent.ts"
import { ApprovalRequest } from "../schema/Proposal.ts"
import type { StoredAnswer } from "../services/access/Idempotency.ts"
import { Idempotency, PositiveDuration } from "../services/access/Idempotency.ts"
import { EventFeed } from "../services/events/EventFeed.ts"
import { Approvals } from "../services/jobs/Approvals.ts"
import { Jobs, maxListLimit } from "../services/jobs/Jobs.ts"
import { Proposals } from "../services/jobs/Proposals.ts"
import { storeRetryAfter } from "../services/store/StoreGuard.ts"
import { CurrentPrincipal } from "./Authentication.ts"
import { Draining } from "./Draining.ts"
import { PreviewApi } from "./JobsApi.ts"

/** Bodies larger than this are not read: a request holds at most 10,000 characters and its constraints. */
const maxBodySize = ByteSize.kibibytes(256)
const maxBodyBytes = ByteSize.toNumberUnsafe(maxBodySize)

const defaultListLimit = 20
const defaultEventLimit = 100
const maxEventLimit = 1000

/** What an SSE client is told to wait before it reconnects (`retry:`). */
const reconnectMillis = 2000

/** `EVENTS_HEARTBEAT` (15 seconds): how often an idle event stream says it is alive. */
export const HeartbeatInterval = Config.schema(PositiveDuration, "EVENTS_HEARTBEAT").pipe(
  Config.withDefault(Duration.seconds(15))
)

type AnyError =
  | JobError
  | CursorExpired
  | InvalidJsonBody
  | IdempotencyKeyRequired
  | IdempotencyKeyInUse
  | IdempotencyKeyReused
  | ServiceUnavailable

const isJobError = (error: unknown): error is JobError =>
  error instanceof InvalidRequest || error instanceof NotFound || error instanceof InvalidState
  || error instanceof RevisionMismatch || error instanceof ProposalMismatch || error instanceof ProposalExpired

const answer = (status: number, document: unknown, headers: Record<string, string> = {}): StoredAnswer => ({
  status,
  headers,
  body: JSON.stringify(document)
})

/**
 * The status of each error the Job API answers with, one per class. An error not listed here is a bug,
 * never an answer: it dies, is logged, and answers 503 (see `guarded`).
 */
const statuses: ReadonlyArray<readonly [abstract new(...args: never) => unknown, number]> = [
  [InvalidJsonBody, 400],
  [IdempotencyKeyRequired, 400],
  [NotFound, 404],
  [InvalidState, 409],
  [RevisionMismatch, 409],
  [ProposalMismatch, 409],
  [ProposalExpired, 409],
  [CursorExpired, 410],
  [InvalidRequest, 422],
  [IdempotencyKeyReused, 422]
]

const statusOf = (error: unknown): number => {
  const found = statuses.find(([kind]) => error instanceof kind)
  if (found === undefined) throw new Error(`no status for the error ${String((error as { _tag?: unknown })?._tag)}`)
  return found[1]
}

/** Each error as jobs.md sends it: one status per code, `{"error", "message"}`, and its headers. */
const errorAnswer = (error: AnyError): StoredAnswer => {
  if (error instanceof IdempotencyKeyInUse || error instanceof ServiceUnavailable) {
    const code = error instanceof IdempotencyKeyInUse ? "idempotency_key_in_use" : "unavailable"
    return answer(error instanceof IdempotencyKeyInUse ? 409 : 503, { error: code, message: error.message }, {
      "retry-after": String(error.retryAfter)
    })
  }
  return answer(statusOf(error), { error: error.error, message: error.message })
}

const unavailable = (retryAfter: number = storeRetryAfter) =>
  new ServiceUnavailable({ message: "The service cannot serve the request now; retry later.", retryAfter })

const respond = (stored: StoredAnswer, replayed = false) =>
  HttpServerResponse.text(stored.body, {
    status: stored.status,
    contentType: "application/json",
    headers: replayed ? { ...stored.headers, "idempotent-replayed": "true" } : stored.headers
  })

const jobAnswer = (job: Job, status = 200): StoredAnswer =>
  answer(status, job, status === 201 ? { location: `/v1/jobs/${job.id}` } : {})

/** `application/json`, with any parameters, in any case. */
const isJson = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  const end = contentType.indexOf(";")
  return (end === -1 ? contentType : contentType.slice(0, end)).trim().toLowerCase() === "application/json"
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

const notJson = new InvalidJsonBody({ message: "The body is not a JSON document (UTF-8, application/json)." })
const tooLarge = new InvalidJsonBody({ message: `The body is larger than ${maxBodyBytes} bytes.` })

const readBody = (request: HttpServerRequest) => {
  const declared = request.headers["content-length"]
  if (declared !== undefined && Number(declared) > maxBodyBytes) return Effect.fail(tooLarge)
  return request.arrayBuffer.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, maxBodySize),
    Effect.map((buffer) => new Uint8Array(buffer)),
    Effect.catch(() => Effect.fail(tooLarge))
  )
}

/** The body's JSON value; `undefined` for an empty body, which only some operations accept. */
const parseBody = (request: HttpServerRequest, body: Uint8Array, emptyAllowed: boolean) => {
  if (body.length === 0) return emptyAllowed ? Result.succeed(undefined) : Result.fail(notJson)
  if (!isJson(request.headers["content-type"])) return Result.fail(notJson)
  try {
    return Result.succeed<unknown>(JSON.parse(strictUtf8.decode(body)))
  } catch {
    return Result.fail(notJson)
  }
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

/** jobs.md: the method, the path as sent, and the SHA-256 of the body's JCS form ("" for no body). */
export const fingerprintOf = (method: string, path: string, document: unknown) =>
  sha256(`${method} ${path}\n${document === undefined ? "" : sha256(canonicalize(document)!)}`)

const fingerprint = (request: HttpServerRequest, document: unknown) => {
  const end = request.url.indexOf("?")
  return fingerprintOf(request.method, end === -1 ? request.url : request.url.slice(0, end), document)
}

/** Visible ASCII, 1 to 255 characters. */
const keyPattern = /^[\x21-\x7e]{1,255}$/

const keyRequired = new IdempotencyKeyRequired({
  message: "Send an Idempotency-Key header of 1 to 255 visible ASCII characters, unique to this operation."
})

const bindings = (request: HttpServerRequest) => new URL(request.url, "http://service").searchParams

/** One value of a query parameter; given twice, it is refused. */
const queryValue = (params: URLSearchParams, name: string): Result.Result<string | undefined, InvalidRequest> => {
  const values = params.getAll(name)
  if (values.length > 1) return Result.fail(new InvalidRequest({ message: `${name} is given more than once.` }))
  return Result.succeed(values[0])
}

const positiveInt = (name: string, value: string | undefined, max = Number.MAX_SAFE_INTEGER) => {
  if (value === undefined) return Result.succeed(undefined)
  const n = /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : Number.NaN
  return n >= 1 && n <= max
    ? Result.succeed(n)
    : Result.fail(new InvalidRequest({ message: `${name} must be a whole number from 1 to ${max}.` }))
}

/** A whole number from 0 (a position or a cursor); `undefined` when not given. */
const nonNegativeInt = (name: string, value: string | undefined) => {
  if (value === undefined) return Result.succeed(undefined)
  const n = /^(0|[1-9][0-9]{0,15})$/.test(value) ? Number(value) : Number.NaN
  return Number.isSafeInteger(n)
    ? Result.succeed(n)
    : Result.fail(new InvalidRequest({ message: `${name} must be a position: a whole number from 0.` }))
}

/** Whether the client asks for Server-Sent Events (`Accept: text/event-stream`, not refused with q=0). */
const wantsEventStream = (accept: string | undefined) =>
  accept !== undefined && accept.split(",").some((range) => {
    const [type = "", ...parameters] = range.split(";").map((part) => part.trim().toLowerCase())
    return type === "text/event-stream" && !parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter))
  })

/**
 * Where a reader resumes: `Last-Event-ID` (what an SSE client sends when it reconnects, so the newer of
 * the two) wins over `?after=`; neither is 0, the oldest event kept.
 */
const cursorOf = (request: HttpServerRequest, params: URLSearchParams): Result.Result<number, InvalidRequest> => {
  const header = request.headers["last-event-id"]
  const cursor = header !== undefined && header !== ""
    ? nonNegativeInt("Last-Event-ID", header.trim())
    : Result.flatMap(queryValue(params, "after"), (value) => nonNegativeInt("after", value))
  return Result.map(cursor, (after) => after ?? 0)
}

const sseEvent = (event: JobEvent) => `id: ${event.position}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`

/** The stream as Server-Sent Events: `retry:` first, the events, and a comment every `heartbeat`. */
const eventStreamResponse = (
  events: Stream.Stream<JobEvent, unknown>,
  heartbeat: Duration.Duration,
  draining: Deferred.Deferred<void>
) =>
  HttpServerResponse.stream(
    Stream.make(`retry: ${reconnectMillis}\n\n`).pipe(
      Stream.concat(
        Stream.merge(
          events.pipe(
            Stream.map(sseEvent),
            // A store that fails ends the stream: the client resumes after the last id it received.
            Stream.catchCause((cause) =>
              Stream.fromEffect(Effect.logWarning("event stream ended by its store", cause)).pipe(Stream.drain)
            )
          ),
          Stream.tick(heartbeat).pipe(Stream.drop(1), Stream.map(() => ":\n\n")),
          { haltStrategy: "left" }
        )
      ),
      Stream.interruptWhen(Deferred.await(draining)),
      Stream.encodeText
    ),
    {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-store", "x-accel-buffering": "no" }
    }
  )

export const JobsHttpLive = HttpApiBuilder.group(PreviewApi, "Jobs", (handlers) =>
  Effect.gen(function*() {
    const jobs = yield* Jobs
    const idempotency = yield* Idempotency
    const feed = yield* EventFeed
    const proposals = yield* Proposals
    const approvals = yield* Approvals
    const heartbeat = yield* HeartbeatInterval
    const draining = yield* Draining

    // A defect is a bug, not an answer: log it with its cause, and answer 503.
    const guarded = <R>(name: string, effect: Effect.Effect<HttpServerResponse.HttpServerResponse, never, R>) =>
      effect.pipe(
        Effect.catchDefect((defect) =>
          Effect.logError(`${name} failed`, Cause.die(defect)).pipe(
            Effect.as(respond(errorAnswer(unavailable())))
          )
        )
      )

    const failureAnswer = (error: AnyError | Unavailable) =>
      errorAnswer(error instanceof Unavailable ? unavailable(error.retryAfter) : error)

    const asAnswer = <R>(effect: Effect.Effect<StoredAnswer, AnyError | Unavailable, R>) =>
      Effect.catch(effect, (error) => Effect.succeed(failureAnswer(error)))

    /**
     * A POST, in jobs.md's order: (authentication and scope have run) the Idempotency-Key, the body as
     * JSON, the idempotency check, then the operation, whose answer, 2xx or 4xx, is stored with its
     * effects. A 503 is not stored: the claim is released and a retry runs the operation again.
     */
    const mutation = <A>(
      name: string,
      request: HttpServerRequest,
      options: {
        readonly emptyBodyAllowed?: boolean
        readonly decode: (document: unknown) => Result.Result<A, InvalidRequest>
        readonly run: (principal: Principal, input: A) => Effect.Effect<StoredAnswer, JobError | Unavailable>
      }
    ) =>
      guarded(
        name,
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const key = request.headers["idempotency-key"]
          if (key === undefined || !keyPattern.test(key)) return respond(errorAnswer(keyRequired))
          const body = yield* Effect.result(readBody(request))
          if (Result.isFailure(body)) return respond(errorAnswer(body.failure))
          const document = parseBody(request, body.success, options.emptyBodyAllowed === true)
          if (Result.isFailure(document)) return respond(errorAnswer(document.failure))
          const claimed = yield* Effect.result(
            idempotency.claim(principal.accountId, key, fingerprint(request, document.success))
          )
          if (Result.isFailure(claimed)) return respond(failureAnswer(claimed.failure))
          if (claimed.success._tag === "Replay") return respond(claimed.success.answer, true)
          const operation = Effect.fromResult(options.decode(document.success ?? {})).pipe(
            Effect.flatMap((input) => options.run(principal, input)),
            Effect.catchIf(isJobError, (error) => Effect.succeed(errorAnswer(error)))
          )
          const stored = yield* asAnswer(idempotency.complete(claimed.success.claim, operation))
          return respond(stored)
        })
      )

    const read = <R>(name: string, effect: Effect.Effect<StoredAnswer, JobError | CursorExpired | Unavailable, R>) =>
      guarded(name, Effect.map(asAnswer(effect), (stored) => respond(stored)))

    /**
     * The account's events (or one Job's) after the cursor: a JSON page, or with `Accept:
     * text/event-stream` a live stream, whose cursor and Job are checked before it begins.
     */
    const events = (name: string, request: HttpServerRequest, jobId: string | undefined) =>
      guarded(
        name,
        Effect.gen(function*() {
          const principal = yield* CurrentPrincipal
          const params = bindings(request)
          const after = cursorOf(request, params)
          if (Result.isFailure(after)) return respond(errorAnswer(after.failure))
          const limit = Result.flatMap(
            queryValue(params, "limit"),
            (value) => positiveInt("limit", value, maxEventLimit)
          )
          if (Result.isFailure(limit)) return respond(errorAnswer(limit.failure))
          if (wantsEventStream(request.headers.accept)) {
            const stream = yield* Effect.result(feed.follow(principal.accountId, { jobId, after: after.success }))
            return Result.isFailure(stream)
              ? respond(failureAnswer(stream.failure))
              : eventStreamResponse(stream.success, heartbeat, draining)
          }
          return yield* asAnswer(Effect.gen(function*() {
            const page = yield* jobs.eventPage(principal.accountId, {
              jobId,
              after: after.success,
              limit: limit.success ?? defaultEventLimit
            })
            return answer(200, { data: page.events, nextAfter: page.events.at(-1)?.position ?? after.success })
          })).pipe(Effect.map((stored) => respond(stored)))
        })
      )

    const decodeCreate = decodeDocument(CreateJobRequest)
    const decodeConstraints = decodeDocument(ChangeConstraintsRequest)
    const decodeAnswers = decodeDocument(AnswerQuestionsRequest)
    const decodeApproval = decodeDocument(ApprovalRequest)
    // An empty schema lets any member through; a cancellation takes none.
    const decodeCancel = (document: unknown) =>
      Result.flatMap(decodeDocument(CancelJobRequest)(document), (input) => {
        const [member] = Object.keys(document as object)
        return member === undefined
          ? Result.succeed(input)
          : Result.fail(
            new InvalidRequest({ message: `${member} is not allowed here: a cancellation takes no document.` })
          )
      })

    return handlers
      .handleRaw("createJob", ({ request }) =>
        mutation("createJob", request, {
          decode: decodeCreate,
          run: (principal, input) => Effect.map(jobs.create(principal.accountId, input), (job) => jobAnswer(job, 201))
        }))
      .handleRaw("listJobs", ({ request }) =>
        read(
          "listJobs",
          Effect.gen(function*() {
            const principal = yield* CurrentPrincipal
            const params = bindings(request)
            const status = yield* Effect.fromResult(queryValue(params, "status"))
            if (status !== undefined && !(jobStatuses as ReadonlyArray<string>).includes(status)) {
              return yield* Effect.fail(
                new InvalidRequest({ message: `status must be one of ${jobStatuses.join(", ")}.` })
              )
            }
            const limitText = yield* Effect.fromResult(queryValue(params, "limit"))
            const limit = yield* Effect.fromResult(positiveInt("limit", limitText, maxListLimit))
            const cursor = yield* Effect.fromResult(queryValue(params, "cursor"))
            const page = yield* jobs.list(principal.accountId, {
              status: status as JobStatus | undefined,
              limit: limit ?? defaultListLimit,
              cursor
            })
            return answer(200, page)
          })
        ))
      .handleRaw("getJob", ({ params, request }) =>
        read(
          "getJob",
          Effect.gen(function*() {
            const principal = yield* CurrentPrincipal
            const query = bindings(request)
            const revision = yield* Effect.fromResult(
              Result.flatMap(queryValue(query, "revision"), (value) => positiveInt("revision", value))
            )
            const at = yield* Effect.fromResult(
              Result.flatMap(queryValue(query, "at"), (value) => nonNegativeInt("at", value))
            )
            if (revision !== undefined && at !== undefined) {
              return yield* Effect.fail(new InvalidRequest({ message: "Give revision or at, not both." }))
            }
            const point: ViewPoint | undefined = revision !== undefined
              ? { _tag: "Revision", revision }
              : at !== undefined
              ? { _tag: "Position", position: at }
              : undefined
            const job = point === undefined
              ? yield* jobs.get(principal.accountId, params.id)
              : yield* jobs.view(principal.accountId, params.id, point)
            return answer(200, job)
          })
        ))
      .handleRaw("listJobEvents", ({ params, request }) => events("listJobEvents", request, params.id))
      .handleRaw("listEvents", ({ request }) => events("listEvents", request, undefined))
      .handleRaw("changeConstraints", ({ params, request }) =>
        mutation("changeConstraints", request, {
          decode: decodeConstraints,
          run: (principal, input) =>
            Effect.map(jobs.changeConstraints(principal.accountId, params.id, input), jobAnswer)
        }))
      .handleRaw("answerQuestions", ({ params, request }) =>
        mutation("answerQuestions", request, {
          decode: decodeAnswers,
          run: (principal, input) => Effect.map(jobs.answer(principal.accountId, params.id, input), jobAnswer)
        }))
      .handleRaw("cancelJob", ({ params, request }) =>
        mutation("cancelJob", request, {
          emptyBodyAllowed: true,
          decode: decodeCancel,
          run: (principal) => Effect.map(jobs.cancel(principal.accountId, params.id), jobAnswer)
        }))
      .handleRaw("getProposal", ({ params, request }) =>
        guarded(
          "getProposal",
          Effect.gen(function*() {
            const principal = yield* CurrentPrincipal
            const bytes = yield* Effect.result(proposals.document(principal.accountId, params.id, params.hash))
            if (Result.isFailure(bytes)) return respond(failureAnswer(bytes.failure))
            const etag = `"${params.hash}"`
            const matches = request.headers["if-none-match"]?.split(",").some((tag) => tag.trim() === etag) === true
            return matches
              ? HttpServerResponse.empty({ status: 304, headers: { etag } })
              : HttpServerResponse.text(bytes.success, { contentType: "application/json", headers: { etag } })
          })
        ))
      .handleRaw("createApproval", ({ params, request }) =>
        mutation("createApproval", request, {
          decode: decodeApproval,
          run: (principal, input) =>
            Effect.map(approvals.decide(principal, params.id, input), (approval) => answer(201, approval))
        }))
  }))
