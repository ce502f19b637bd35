import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import {
  CursorExpired,
  InvalidRequest,
  InvalidState,
  NotFound,
  ProposalExpired,
  ProposalMismatch,
  RevisionMismatch,
  TooManyStreams
} from "../schema/ApiErrors.ts"
import { ApprovalLink, ApprovalLinkRequest } from "../schema/ApprovalLink.ts"
import { strictParseOptions } from "../schema/Constraint.ts"
import {
  AnswerQuestionsRequest,
  ChangeConstraintsRequest,
  CreateJobRequest,
  Job,
  JobPage,
  JobStatus,
  jobStatuses
} from "../schema/Job.ts"
import { EventPage, JobAsOf } from "../schema/JobEvent.ts"
import { JobId } from "../schema/JobRef.ts"
import { Approval, ApprovalRequest, ProposalDocument, ProposalHash } from "../schema/Proposal.ts"
import { digits, PositionText, WholeNumberText } from "../schema/Query.ts"
import { Api } from "./Api.ts"
import { Authentication, RequiredScope } from "./Authentication.ts"
import { exactDocument } from "./JobsDocument.ts"
import { AcceptsEmptyBody, Guarded, Idempotent, NoQuery, RequestDecoding } from "./JobsMiddleware.ts"

/**
 * The Job API (docs/API.md), a preview served only with `JOBS_API=preview`. Every part of a request is
 * declared and decoded here; `RequestDecoding` turns what does not decode into the contract's errors,
 * and `Idempotent` runs before it on every POST, so that the order of "Which error wins" holds.
 */

const parameter = (
  name: string,
  location: "header" | "query",
  description: string,
  schema: object,
  required = false
): OpenApi.OpenAPISpecParameter => ({
  name,
  in: location,
  required,
  description,
  schema
})

const idempotencyKey = parameter(
  "Idempotency-Key",
  "header",
  "Unique per operation, 1 to 255 visible ASCII characters. A retry with the same key and request gets the "
    + "stored answer again (with Idempotent-Replayed: true); keys are kept 24 hours.",
  { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x21-\\x7E]+$" },
  true
)

/**
 * Describes headers and query parameters in the operation's document in place of what their schemas
 * say: the `Idempotency-Key` that `Idempotent` checks, `Accept` and `Last-Event-ID` that the event
 * handlers read, and numbers that travel as text but are whole numbers in a range to a reader.
 */
const addParameters =
  (parameters: ReadonlyArray<OpenApi.OpenAPISpecParameter>) =>
  (operation: OpenApi.OpenAPISpecOperation): OpenApi.OpenAPISpecOperation => ({
    ...operation,
    parameters: [
      ...operation.parameters.filter((existing) =>
        !parameters.some((parameter) =>
          parameter.in === existing.in && parameter.name.toLowerCase() === existing.name.toLowerCase()
        )
      ),
      ...parameters
    ]
  })

const withParameters = (...parameters: ReadonlyArray<OpenApi.OpenAPISpecParameter>) =>
  OpenApi.annotations({
    transform: (operation) => addParameters(parameters)(operation as OpenApi.OpenAPISpecOperation)
  })

/** The `Idempotency-Key` header as typed clients send it; `Idempotent` checks it. */
const idempotencyHeader = { "idempotency-key": Schema.optional(Schema.String) }

/**
 * A path parameter as the document shows it (`shape`), decoded as any text: a value of another shape
 * names nothing, which the handler answers with 404 once the rest of the request has been checked
 * (docs/API.md, "Which error wins": 422 before 404).
 */
const pathText = <S extends Schema.Top>(shape: S) =>
  Schema.String.check(Schema.makeFilter(() => true, { toJsonSchema: () => Schema.toJsonSchemaDocument(shape).schema }))

export const JobIdText = pathText(JobId).pipe(Schema.brand("JobId"))
export const ProposalHashText = pathText(ProposalHash).pipe(Schema.brand("ProposalHash"))

const idParams = { id: JobIdText }

export const createJob = HttpApiEndpoint.post("createJob", "/v1/jobs", {
  headers: idempotencyHeader,
  payload: CreateJobRequest,
  success: Job.pipe(HttpApiSchema.status(201))
}).annotateMerge(OpenApi.annotations({
  summary: "Create a Job from a User's request",
  description: "201 with the Job (status `interpreting`) and its `Location`."
})).annotateMerge(withParameters(idempotencyKey)).annotate(RequiredScope, "jobs:write")
  .middleware(RequestDecoding).middleware(Idempotent)

export const listJobs = HttpApiEndpoint.get("listJobs", "/v1/jobs", {
  query: {
    status: Schema.optional(JobStatus),
    limit: Schema.optional(WholeNumberText(1, 100)),
    cursor: Schema.optional(Schema.String)
  },
  success: JobPage
}).annotateMerge(OpenApi.annotations({ summary: "List the account's Jobs, newest first" })).annotateMerge(
  withParameters(
    parameter("status", "query", "Only Jobs in this status.", { type: "string", enum: jobStatuses }),
    parameter("limit", "query", "Jobs per page, 1 to 100 (20 unless given).", {
      type: "integer",
      minimum: 1,
      maximum: 100
    }),
    parameter("cursor", "query", "The `nextCursor` of the previous page.", { type: "string" })
  )
).annotate(RequiredScope, "jobs:read")
  .middleware(RequestDecoding)

export const getJob = HttpApiEndpoint.get("getJob", "/v1/jobs/:id", {
  params: idParams,
  query: { revision: Schema.optional(WholeNumberText(1)), at: Schema.optional(PositionText) },
  success: [JobAsOf, Job],
  error: [InvalidRequest, NotFound, CursorExpired]
}).annotateMerge(OpenApi.annotations({
  summary: "Read a Job, now or as it was at a revision or a position",
  description: "With `revision` or `at`, a point-in-time view with `asOf`: the revision and the position of "
    + "the Job's last event it includes. Both at once are refused (422)."
}))
  .annotateMerge(withParameters(
    parameter("revision", "query", "The Job at the end of this revision (after its last event). Not with `at`.", {
      type: "integer",
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER
    }),
    parameter("at", "query", "The Job after all its events at positions up to this one. Not with `revision`.", {
      type: "integer",
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER
    })
  )).annotate(RequiredScope, "jobs:read")
  .middleware(RequestDecoding)

export const changeConstraints = HttpApiEndpoint.post("changeConstraints", "/v1/jobs/:id/constraints", {
  params: idParams,
  headers: idempotencyHeader,
  payload: ChangeConstraintsRequest,
  success: Job,
  error: [NotFound, InvalidState, RevisionMismatch]
}).annotateMerge(OpenApi.annotations({
  summary: "Replace the caller's constraints",
  description: "A new revision, interpreted again; constraints equal to the current ones change nothing."
})).annotateMerge(withParameters(idempotencyKey)).annotate(RequiredScope, "jobs:write")
  .middleware(RequestDecoding).middleware(Idempotent)

export const answerQuestions = HttpApiEndpoint.post("answerQuestions", "/v1/jobs/:id/input", {
  params: idParams,
  headers: idempotencyHeader,
  payload: AnswerQuestionsRequest,
  success: Job,
  error: [NotFound, InvalidState, RevisionMismatch]
}).annotateMerge(OpenApi.annotations({
  summary: "Answer open questions",
  description: "A new revision. With every question answered the Job is interpreted again; otherwise the "
    + "other questions stay open."
})).annotateMerge(withParameters(idempotencyKey)).annotate(RequiredScope, "jobs:write")
  .middleware(RequestDecoding).middleware(Idempotent)

export const cancelJob = HttpApiEndpoint.post("cancelJob", "/v1/jobs/:id/cancel", {
  params: idParams,
  headers: idempotencyHeader,
  success: Job,
  error: [InvalidRequest, NotFound, InvalidState]
}).annotateMerge(OpenApi.annotations({
  summary: "Cancel a Job",
  description: "A change of status, not a new revision. The body may be empty.",
  // A cancellation takes no document: the handler checks that the body is empty or `{}`.
  transform: (described) => ({
    ...addParameters([idempotencyKey])(described as OpenApi.OpenAPISpecOperation),
    requestBody: {
      content: {
        "application/json": {
          schema: { type: "object", additionalProperties: false, description: "No members: `{}`, or no body." }
        }
      },
      required: false
    }
  })
})).annotate(AcceptsEmptyBody, true).annotate(RequiredScope, "jobs:write")
  .middleware(RequestDecoding).middleware(Idempotent)

export const getProposal = HttpApiEndpoint.get("getProposal", "/v1/jobs/:id/proposals/:hash", {
  params: { id: JobIdText, hash: ProposalHashText },
  success: ProposalDocument,
  error: [InvalidRequest, NotFound]
}).annotateMerge(OpenApi.annotations({
  summary: "Read a proposal, as the exact bytes that were hashed",
  description: "The RFC 8785 (JCS) canonical JSON of the document, as stored; its SHA-256 is the hash, also "
    + "sent as the ETag. Every proposal the Job ever had is served, superseded ones included. Scope jobs:read "
    + "or approvals:write."
})).annotate(RequiredScope, ["jobs:read", "approvals:write"]).middleware(RequestDecoding)

/** A decision's refusals, in the order they are checked: for an approval, and for a link to make one. */
const decisionErrors = [NotFound, InvalidState, RevisionMismatch, ProposalMismatch, ProposalExpired] as const

export const createApproval = HttpApiEndpoint.post("createApproval", "/v1/jobs/:id/approvals", {
  params: idParams,
  headers: idempotencyHeader,
  payload: ApprovalRequest,
  success: Approval.pipe(HttpApiSchema.status(201)),
  error: decisionErrors
}).annotateMerge(OpenApi.annotations({
  summary: "Approve or reject the Job's open proposal",
  description: "Bound to one proposalHash and the Job's current jobRevision; recorded once. Checked in this "
    + "order: 404, revision_mismatch, invalid_state (not awaiting_approval, or decided already), "
    + "proposal_mismatch, proposal_expired. approve: the Job executes; reject: it plans again without that offer."
})).annotateMerge(withParameters(idempotencyKey)).annotate(RequiredScope, "approvals:write")
  .middleware(RequestDecoding).middleware(Idempotent)

export const createApprovalLink = HttpApiEndpoint.post("createApprovalLink", "/v1/jobs/:id/approval-links", {
  params: idParams,
  headers: idempotencyHeader,
  payload: ApprovalLinkRequest,
  success: ApprovalLink.pipe(HttpApiSchema.status(201)),
  error: decisionErrors
}).annotateMerge(OpenApi.annotations({
  summary: "A link a person opens to approve or reject the Job's open proposal",
  description: "For a client that should not hold the person's authority: `url` is a page where the person "
    + "decides, once, on this proposal of this revision, until the proposal's expiresAt. The same checks, in the "
    + "same order, as an approval. The token in `url` is shown once and stored only as a hash."
})).annotateMerge(withParameters(idempotencyKey)).annotate(RequiredScope, "approvals:write")
  .middleware(RequestDecoding).middleware(Idempotent)

/** A position as a header carries it: digits only, no leading zero (and, the server checks, at most 2^53 - 1). */
const positionPattern = digits.source

const eventParameters = [
  parameter(
    "after",
    "query",
    "Events after this position (0, the default: from the oldest kept). Last-Event-ID wins when both are sent.",
    { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER }
  ),
  parameter("limit", "query", "Events per JSON page, 1 to 1000 (100 unless given).", {
    type: "integer",
    minimum: 1,
    maximum: 1000
  }),
  parameter("Last-Event-ID", "header", "Resume after this position (what an SSE client sends when it reconnects).", {
    type: "string",
    pattern: positionPattern
  }),
  parameter(
    "Accept",
    "header",
    "`text/event-stream` for a live stream of Server-Sent Events; otherwise one JSON page.",
    { type: "string" }
  )
]

/**
 * The event parameters, and the 200 as a stream of Server-Sent Events beside the JSON page (one
 * transform: an operation has one).
 */
const asEventReading = OpenApi.annotations({
  transform: (described) => {
    const operation = addParameters(eventParameters)(described as OpenApi.OpenAPISpecOperation)
    const ok = operation.responses["200"]
    if (ok === undefined) return operation
    return {
      ...operation,
      responses: {
        ...operation.responses,
        "200": {
          ...ok,
          content: {
            ...ok.content,
            "text/event-stream": {
              // OpenAPI 3.1 has no schema for one event of a stream: each `data:` is this.
              "x-sse-data": { $ref: "#/components/schemas/JobEvent" },
              schema: {
                type: "string",
                description: "`retry:` first, then one event per change (`id:` its position, `event:` its type, "
                  + "`data:` the JobEvent as JSON), exactly once and in order, live; a `:` comment every 15 s."
              }
            }
          }
        }
      }
    }
  }
})

const eventQuery = { after: Schema.optional(PositionText), limit: Schema.optional(WholeNumberText(1, 1000)) }

export const listEvents = HttpApiEndpoint.get("listEvents", "/v1/events", {
  query: eventQuery,
  success: EventPage,
  error: [InvalidRequest, CursorExpired, TooManyStreams]
}).annotateMerge(OpenApi.annotations({
  summary: "Every event of the account, as a JSON page or a live stream",
  description: "Resumable: a reader that resumes after position p gets every later event exactly once, in order."
})).annotateMerge(asEventReading).annotate(RequiredScope, "jobs:read").middleware(RequestDecoding)

export const listJobEvents = HttpApiEndpoint.get("listJobEvents", "/v1/jobs/:id/events", {
  params: idParams,
  query: eventQuery,
  success: EventPage,
  error: [InvalidRequest, NotFound, CursorExpired, TooManyStreams]
}).annotateMerge(OpenApi.annotations({
  summary: "A Job's events, as a JSON page or a live stream",
  description: "The account's events of this Job only; positions and resumption as for /v1/events."
})).annotateMerge(asEventReading).annotate(RequiredScope, "jobs:read").middleware(RequestDecoding)

export class JobsApi extends HttpApiGroup.make("Jobs")
  .add(
    createJob,
    listJobs,
    getJob,
    changeConstraints,
    answerQuestions,
    cancelJob,
    getProposal,
    createApproval,
    createApprovalLink,
    listJobEvents,
    listEvents
  )
  .middleware(NoQuery)
  .middleware(Guarded)
  .middleware(Authentication)
  .annotate(HttpApi.PayloadParseOptions, strictParseOptions)
  // A query parameter an operation does not name is refused, not ignored (`?limt=2` is a mistake).
  .annotate(HttpApi.QueryParseOptions, strictParseOptions)
  .annotateMerge(OpenApi.annotations({
    title: "Jobs (preview)",
    description: "Preview: served only when the operator sets JOBS_API=preview. Every operation needs an API "
      + "key (Authorization: Bearer) with its scope; every POST needs an Idempotency-Key."
  }))
{}

/** The service's API with the Job API preview: what is served and published with `JOBS_API=preview`. */
export class PreviewApi extends Api.add(JobsApi).annotateMerge(OpenApi.annotations({ transform: exactDocument })) {}
