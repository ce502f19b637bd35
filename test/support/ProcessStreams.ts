/**
 * Event streams of real service processes (`node src/main.ts`), read off Node's http client with the
 * service's own SSE reader: what the tests across processes share.
 */
import { assert } from "@effect/vitest"
import { Duration } from "effect"
import { once } from "node:events"
import http from "node:http"
import { performance } from "node:perf_hooks"
import * as SseReader from "../../src/client/SseReader.ts"
import type { JobEvent as JobEventSchema } from "../../src/schema/JobEvent.ts"
import { caller, sleep } from "./ServiceProcess.ts"

export interface JobView {
  readonly id: string
  readonly jobRevision: number
  readonly status: string
  readonly updatedAt: string
}

/** An event as the API sends it. */
export type JobEvent = typeof JobEventSchema.Encoded

export const api = (base: string, key: string) => {
  const request = caller(base, key)
  return {
    create: () =>
      request<JobView>("POST", "/v1/jobs", {
        request: "Book a table for 4 in Lisbon next Friday at 8pm",
        constraints: []
      }),
    constrain: (job: JobView, text: string) =>
      request<JobView>("POST", `/v1/jobs/${job.id}/constraints`, {
        jobRevision: job.jobRevision,
        constraints: [{ type: "note", text }]
      }),
    cancel: (job: JobView) => request<JobView>("POST", `/v1/jobs/${job.id}/cancel`, {}),
    get: (id: string) => request<JobView>("GET", `/v1/jobs/${id}`),
    events: (path = "/v1/events") =>
      request<{ data: Array<JobEvent>; nextAfter: number }>("GET", `${path}?after=0&limit=1000`).then((page) =>
        page.data
      )
  }
}

export interface Received {
  readonly event: JobEvent
  /** `performance.now()` when the event was parsed off the wire. */
  readonly at: number
}

/** An SSE stream off Node's http response, read with the service's own reader (`SseReader`). */
export const openStream = async (base: string, path: string, key: string, headers: Record<string, string> = {}) => {
  const received: Array<Received> = []
  const state = {
    heartbeats: 0,
    ended: undefined as string | undefined,
    // `retry:` as read, with the number of events before it (the service sends it first).
    retry: undefined as { readonly millis: number; readonly after: number } | undefined
  }
  const request = http.get(`${base}${path}`, {
    headers: { ...headers, accept: "text/event-stream", authorization: `Bearer ${key}` }
  })
  const [response] = (await once(request, "response")) as [http.IncomingMessage]
  if (response.statusCode !== 200) {
    request.destroy()
    throw new Error(`${path}: ${response.statusCode}`)
  }
  assert.match(String(response.headers["content-type"]), /^text\/event-stream/)
  response.setEncoding("utf8")
  let at = 0
  const read = SseReader.makeReader({
    event: (message) => {
      const event = JSON.parse(message.data) as JobEvent
      assert.strictEqual(message.id, String(event.position), message.data)
      assert.strictEqual(message.event, event.type, message.data)
      received.push({ event, at })
    },
    retry: (after) => state.retry ??= { millis: Duration.toMillis(after), after: received.length },
    comment: () => state.heartbeats++
  })
  response.on("data", (chunk: string) => {
    at = performance.now()
    read(chunk)
  })
  response.on("end", () => state.ended ??= "ended by the server")
  response.on("error", (error) => state.ended ??= `error: ${error.message}`)
  request.on("error", (error) => state.ended ??= `error: ${error.message}`)
  return { received, state, close: () => request.destroy() }
}

export type Stream = Awaited<ReturnType<typeof openStream>>

/**
 * Until `done`. Gives up after a minute: a liveness guard (the test fails instead of hanging), not a
 * bound on how fast it happens, which belongs in `npm run test:faults`.
 */
export const waitFor = async (what: string, done: () => boolean | Promise<boolean>) => {
  const deadline = Date.now() + 60_000
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not within 60 s: ${what}`)
    await sleep(20)
  }
}

/**
 * Until no Job is interpreting, each one's last change is published (a page shows only what no open
 * transaction anywhere on the server can precede, which other suites' transactions may hold back), and
 * the account's events have not grown for a second; answers them.
 */
export const settle = async (client: ReturnType<typeof api>, ids: ReadonlyArray<string>) => {
  const deadline = Date.now() + 60_000
  let last: Array<JobEvent> = []
  let stableSince = Date.now()
  for (;;) {
    const [page, jobs] = await Promise.all([client.events(), Promise.all(ids.map(client.get))])
    if (page.length !== last.length) stableSince = Date.now()
    last = page
    // A change's events carry its time, which the Job keeps as `updatedAt` until the next change.
    const published = jobs.every((job) =>
      page.some((event) => event.jobId === job.id && event.occurredAt === job.updatedAt)
    )
    if (jobs.every((job) => job.status !== "interpreting") && published && Date.now() - stableSince >= 1000) {
      return page
    }
    if (Date.now() > deadline) throw new Error(`the account's events did not settle: ${JSON.stringify(jobs)}`)
    await sleep(200)
  }
}

export const positions = (events: ReadonlyArray<JobEvent>) => events.map((event) => event.position)

/** Positions strictly increasing: each event once, in order. */
export const assertOnceInOrder = (name: string, stream: Stream) => {
  const seen = positions(stream.received.map((r) => r.event))
  for (let i = 1; i < seen.length; i++) {
    assert.isAbove(seen[i]!, seen[i - 1]!, `${name}: position ${seen[i]} after ${seen[i - 1]} (${seen.join(", ")})`)
  }
}
