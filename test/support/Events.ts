import { Effect } from "effect"
import type { Scope } from "effect"
import { request } from "node:http"
import * as JobsClient from "../../src/client/JobsClient.ts"
import type { JobEvent } from "../../src/schema/JobEvent.ts"
import type { JobId } from "../../src/schema/JobRef.ts"
import { baseUrl } from "./Http.ts"
import { newIdempotencyKey } from "./JobsHttp.ts"
import * as WallClock from "./WallClock.ts"

export interface SseRead {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly text: string
}

/**
 * Opens `path` as an event stream (`Accept: text/event-stream`) and reads its text until `until` holds
 * of what arrived (or the answer ends, or `timeoutMs` passes: a liveness guard, `WallClock.patience`);
 * then closes the connection.
 */
export const readEventStream = (
  url: string,
  path: string,
  options: {
    readonly key: string
    readonly headers?: Record<string, string>
    readonly until: (text: string) => boolean
    readonly timeoutMs?: number
  }
): Effect.Effect<SseRead> =>
  Effect.callback<SseRead>((resume) => {
    let text = ""
    const req = request(new URL(url + path), {
      headers: { accept: "text/event-stream", authorization: `Bearer ${options.key}`, ...options.headers },
      agent: false
    }, (res) => {
      const done = () => {
        clearTimeout(timer)
        req.destroy()
        resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, text }))
      }
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        text += chunk
        if (options.until(text)) done()
      })
      res.on("end", done)
      res.on("error", done)
    })
    const timer = setTimeout(() => req.destroy(new Error("timed out")), options.timeoutMs ?? WallClock.patience(5_000))
    req.on("error", (error) => resume(Effect.succeed({ status: 0, headers: {}, text: `${text}\n# ${error.message}` })))
    req.end()
    return Effect.sync(() => {
      clearTimeout(timer)
      req.destroy()
    })
  })

export interface OpenStream {
  /** The status, once the answer has begun. */
  readonly status: Effect.Effect<number>
  /** The text received so far. */
  readonly text: () => string
  /** Whether the server ended the answer. */
  readonly ended: () => boolean
  readonly close: Effect.Effect<void>
}

/** Opens `path` as an event stream and keeps it open, reading, until closed (or the scope ends). */
export const openEventStream = (
  url: string,
  path: string,
  options: { readonly key: string; readonly headers?: Record<string, string> }
): Effect.Effect<OpenStream, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      let text = ""
      let ended = false
      let answered: (status: number) => void = () => undefined
      const status = new Promise<number>((resolve) => answered = resolve)
      const req = request(new URL(url + path), {
        headers: { accept: "text/event-stream", authorization: `Bearer ${options.key}`, ...options.headers },
        agent: false
      }, (res) => {
        answered(res.statusCode ?? 0)
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => text += chunk)
        res.on("end", () => ended = true)
        res.on("error", () => ended = true)
      })
      req.on("error", () => {
        ended = true
        answered(0)
      })
      req.end()
      return {
        status: Effect.promise(() => status),
        text: () => text,
        ended: () => ended,
        close: Effect.sync(() => req.destroy())
      }
    }),
    (stream) => stream.close
  )

export const client = (key: string) => Effect.flatMap(baseUrl, (url) => JobsClient.make({ baseUrl: url, apiKey: key }))

type Client = JobsClient.JobsClient

export const create = (api: Client, request = "Book a table for 4 in Lisbon next Friday at 8pm") =>
  api.Jobs.createJob({ headers: { "idempotency-key": newIdempotencyKey() }, payload: { request, constraints: [] } })

const note = (text: string) => [{ type: "note" as const, text }]

/** Changes the Job's constraints (a new revision), reading its revision first. */
export const revise = (api: Client, id: JobId, text: string) =>
  Effect.gen(function*() {
    const job = yield* api.Jobs.getJob({ params: { id }, query: {} })
    return yield* api.Jobs.changeConstraints({
      params: { id },
      headers: { "idempotency-key": newIdempotencyKey() },
      payload: { jobRevision: job.jobRevision, constraints: note(text) }
    })
  })

/** Every event of the account (or a Job), read page by page with the typed client. */
export const allEvents = (api: Client, jobId?: JobId) =>
  Effect.gen(function*() {
    const events: Array<JobEvent> = []
    let after = 0
    while (true) {
      const page = jobId === undefined
        ? yield* api.Jobs.listEvents({ query: { after, limit: 7 } })
        : yield* api.Jobs.listJobEvents({ params: { id: jobId }, query: { after, limit: 7 } })
      events.push(...page.data)
      if (page.data.length === 0) return events
      after = page.nextAfter
    }
  })

/**
 * Waits until the account's events stop changing (the runner interprets in the background) and its pages
 * hold every event each Job has committed: on PostgreSQL an event is published only once every older
 * transaction of the cluster has ended, and another test file's transaction can be one of them.
 */
export const quiet = (api: Client) =>
  Effect.gen(function*() {
    let last = -1
    for (let i = 0; i < 200; i++) {
      const events = yield* allEvents(api)
      if (events.length === last && (yield* allPublished(api, events))) return
      last = events.length
      yield* Effect.sleep("100 millis")
    }
  })

/** Whether `events` reach, for each of the account's Jobs, the last event of its current revision. */
const allPublished = (api: Client, events: ReadonlyArray<JobEvent>) =>
  Effect.gen(function*() {
    const jobs = yield* api.Jobs.listJobs({ query: { limit: 100 } })
    for (const job of jobs.data) {
      const view = yield* api.Jobs.getJob({ params: { id: job.id }, query: { revision: job.jobRevision } })
      const reached = events.filter((event) => event.jobId === job.id).at(-1)?.position ?? 0
      if (!("asOf" in view) || reached < view.asOf.position) return false
    }
    return true
  })
