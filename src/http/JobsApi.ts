import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  IdempotencyKeyInUseBody,
  IdempotencyKeyRequired,
  IdempotencyKeyReused,
  InvalidJsonBody,
  InvalidRequest,
  InvalidState,
  NotFound,
  RevisionMismatch,
  ServiceUnavailableResponse
} from "../schema/ApiErrors.ts"
import {
  AnswerQuestionsRequest,
  CancelJobRequest,
  ChangeConstraintsRequest,
  CreateJobRequest,
  Job,
  JobPage,
  jobStatuses
} from "../schema/Job.ts"
import { Api } from "./Api.ts"
import { Authentication, RequiredScope } from "./Authentication.ts"

/**
 * The Job API (jobs.md), a preview served only with `JOBS_API=preview`. As for the waitlist, the
 * schemas describe the documents for the OpenAPI document and clients; the handlers read requests
 * themselves (`JobsHttp.ts`), because jobs.md fixes which error wins when several apply.
 */

const parameter = (
  name: string,
  location: "header" | "query",
  description: string,
  schema: object,
  required = false
) => ({
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

/** Adds what the handlers read themselves (headers and query parameters) to the operation's document. */
const withParameters = (...parameters: ReadonlyArray<object>) =>
  OpenApi.annotations({
    transform: (operation) => ({ ...operation, parameters: [...(operation.parameters ?? []), ...parameters] })
  })

const mutationErrors = [
  IdempotencyKeyRequired,
  InvalidJsonBody,
  IdempotencyKeyInUseBody,
  IdempotencyKeyReused,
  InvalidRequest,
  ServiceUnavailableResponse
] as const

const idParams = { id: Schema.String }

export const createJob = HttpApiEndpoint.post("createJob", "/v1/jobs", {
  payload: CreateJobRequest,
  success: Job.pipe(HttpApiSchema.status(201)),
  error: mutationErrors
}).annotateMerge(OpenApi.annotations({
  summary: "Create a Job from a User's request",
  description: "201 with the Job (status `interpreting`) and its `Location`."
})).annotateMerge(withParameters(idempotencyKey)).annotate(RequiredScope, "jobs:write")

export const listJobs = HttpApiEndpoint.get("listJobs", "/v1/jobs", {
  success: JobPage,
  error: [InvalidRequest, ServiceUnavailableResponse]
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

export const getJob = HttpApiEndpoint.get("getJob", "/v1/jobs/:id", {
  params: idParams,
  success: Job,
  error: [InvalidRequest, NotFound, ServiceUnavailableResponse]
}).annotateMerge(OpenApi.annotations({ summary: "Read a Job, now or at the end of one of its revisions" }))
  .annotateMerge(withParameters(
    parameter("revision", "query", "The Job at the end of this revision (after its last event).", {
      type: "integer",
      minimum: 1
    })
  )).annotate(RequiredScope, "jobs:read")

export const changeConstraints = HttpApiEndpoint.post("changeConstraints", "/v1/jobs/:id/constraints", {
  params: idParams,
  payload: ChangeConstraintsRequest,
  success: Job,
  error: [...mutationErrors, NotFound, InvalidState, RevisionMismatch]
}).annotateMerge(OpenApi.annotations({
  summary: "Replace the caller's constraints",
  description: "A new revision, interpreted again; constraints equal to the current ones change nothing."
})).annotateMerge(withParameters(idempotencyKey)).annotate(RequiredScope, "jobs:write")

export const answerQuestions = HttpApiEndpoint.post("answerQuestions", "/v1/jobs/:id/input", {
  params: idParams,
  payload: AnswerQuestionsRequest,
  success: Job,
  error: [...mutationErrors, NotFound, InvalidState, RevisionMismatch]
}).annotateMerge(OpenApi.annotations({
  summary: "Answer open questions",
  description: "A new revision. With every question answered the Job is interpreted again; otherwise the "
    + "other questions stay open."
})).annotateMerge(withParameters(idempotencyKey)).annotate(RequiredScope, "jobs:write")

export const cancelJob = HttpApiEndpoint.post("cancelJob", "/v1/jobs/:id/cancel", {
  params: idParams,
  payload: CancelJobRequest,
  success: Job,
  error: [...mutationErrors, NotFound, InvalidState]
}).annotateMerge(OpenApi.annotations({
  summary: "Cancel a Job",
  description: "A change of status, not a new revision. The body may be empty."
})).annotateMerge(withParameters(idempotencyKey)).annotate(RequiredScope, "jobs:write")

export class JobsApi extends HttpApiGroup.make("Jobs")
  .add(createJob, listJobs, getJob, changeConstraints, answerQuestions, cancelJob)
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({
    title: "Jobs (preview)",
    description: "Preview: served only when the operator sets JOBS_API=preview. Every operation needs an API "
      + "key (Authorization: Bearer) with its scope; every POST needs an Idempotency-Key."
  }))
{}

/** The service's API with the Job API preview: what is served and published with `JOBS_API=preview`. */
export class PreviewApi extends Api.add(JobsApi) {}
