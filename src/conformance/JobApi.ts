import * as Effect from "effect/Effect"
import { Job } from "../schema/Job.ts"
import { decode, expectStatus, parseJson, poll } from "./Check.ts"
import { send } from "./Http.ts"

/** Statuses in which the service is still working on its own; any other waits for someone, or is final. */
const working = new Set(["interpreting", "planning", "executing", "verifying", "recovering"])

export const budget = { type: "budget", max: { amount: "200.00", currency: "EUR" } } as const

/**
 * The Job API as the checks call it, with one key: every POST carries a new Idempotency-Key of this
 * run unless the check names one (or none), and a JSON body (an empty one, without Content-Type, when
 * `body` is undefined).
 */
export const makeJobApi = (baseUrl: string, key: string, runId: string) => {
  let counter = 0
  const idempotencyKey = () => `conformance-${runId}-${++counter}`
  const auth = { authorization: `Bearer ${key}` }

  const get = (path: string, headers: Record<string, string> = {}) =>
    send(baseUrl, { path, headers: { ...auth, ...headers } })

  const post = (
    path: string,
    body: unknown,
    options: { readonly idempotencyKey?: string | null; readonly headers?: Record<string, string> } = {}
  ) => {
    const key = options.idempotencyKey === undefined ? idempotencyKey() : options.idempotencyKey
    return send(baseUrl, {
      method: "POST",
      path,
      headers: {
        ...auth,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(key === null ? {} : { "idempotency-key": key }),
        ...options.headers
      },
      body: body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body)
    })
  }

  const readJob = (id: string) =>
    get(`/v1/jobs/${id}`).pipe(
      Effect.tap((answer) => expectStatus(answer, 200)),
      Effect.flatMap(parseJson),
      Effect.flatMap(decode(Job, "a Job"))
    )

  const showJob = (job: Job) => `status ${job.status} at revision ${job.jobRevision}`

  /** The Job once the service has stopped working on it: waiting for someone, or ended. */
  const settled = (id: string) =>
    poll(
      "the Job to stop working (waiting for input or approval, or ended)",
      readJob(id),
      (job) => !working.has(job.status),
      showJob
    )

  /** Creates a Job and answers it as the 201 decodes. */
  const create = (request: string, constraints: ReadonlyArray<unknown>) =>
    post("/v1/jobs", { request, constraints }).pipe(
      Effect.tap((answer) => expectStatus(answer, 201)),
      Effect.flatMap(parseJson),
      Effect.flatMap(decode(Job, "a Job"))
    )

  return { baseUrl, auth, idempotencyKey, get, post, readJob, showJob, settled, create }
}

export type JobApi = ReturnType<typeof makeJobApi>
