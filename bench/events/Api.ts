/** The Job API as the benches call it: node:http with keep-alive, no client of ours in between. */
import { request } from "node:http"
import type { Agent } from "node:http"
import type { JobEvent } from "../../src/schema/JobEvent.ts"
import { sleep } from "./Support.ts"

export interface JobView {
  readonly id: string
  readonly jobRevision: number
  readonly status: string
  readonly asOf?: { readonly jobRevision: number; readonly position: number }
}

/** An event as the API sends it. */
export type EventJson = typeof JobEvent.Encoded

interface EventPageJson {
  readonly data: ReadonlyArray<EventJson>
  readonly nextAfter: number
}

interface Answer {
  readonly status: number
  readonly body: string
  /** From the request's start to the end of its answer. */
  readonly ms: number
}

let idempotencyCounter = 0
/** Requests sent again because a kept-alive connection was closed under them (the same Idempotency-Key). */
export const resent: Array<string> = []

export const client = (port: number, key: string, agent: Agent) => {
  const once = (method: string, path: string, text: string | undefined, idempotencyKey: string) =>
    new Promise<Answer>((resolve, reject) => {
      const started = process.hrtime.bigint()
      const req = request({
        host: "127.0.0.1",
        port,
        path,
        method,
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          ...(text === undefined ? {} : {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(text),
            "idempotency-key": idempotencyKey
          })
        }
      }, (res) => {
        let data = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => data += chunk)
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: data,
            ms: Number(process.hrtime.bigint() - started) / 1e6
          }))
        res.on("error", reject)
      })
      req.on("error", reject)
      req.end(text)
    })
  /** One request; sent again (at most twice) when its connection was reset before any answer. */
  const call = async (method: string, path: string, body?: unknown) => {
    const text = body === undefined ? undefined : JSON.stringify(body)
    const idempotencyKey = `bench-${process.pid}-${++idempotencyCounter}`
    for (let attempt = 1;; attempt++) {
      try {
        return await once(method, path, text, idempotencyKey)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (attempt === 3 || (code !== "ECONNRESET" && code !== "EPIPE")) throw error
        resent.push(`${method} ${path}: ${code} ${(error as Error).message}`)
      }
    }
  }
  const expect = async <A>(method: string, path: string, status: number, body?: unknown) => {
    const answer = await call(method, path, body)
    if (answer.status !== status) {
      throw new Error(`${method} ${path}: ${answer.status} (expected ${status}) ${answer.body.slice(0, 500)}`)
    }
    return JSON.parse(answer.body) as A
  }
  return {
    call,
    create: (text: string) => expect<JobView>("POST", "/v1/jobs", 201, { request: text, constraints: [] }),
    get: (id: string) => expect<JobView>("GET", `/v1/jobs/${id}`, 200),
    change: (job: JobView, note: string) =>
      expect<JobView>("POST", `/v1/jobs/${job.id}/constraints`, 200, {
        jobRevision: job.jobRevision,
        constraints: [{ type: "note", text: note }]
      }),
    cancel: (id: string) => expect<JobView>("POST", `/v1/jobs/${id}/cancel`, 200, {}),
    list: (limit: number) => expect<{ readonly data: ReadonlyArray<JobView> }>("GET", `/v1/jobs?limit=${limit}`, 200),
    /** Every event (of the account, or of one Job) after `after`, through the JSON pages. */
    events: async (jobId?: string, after = 0) => {
      const all: Array<EventJson> = []
      const base = jobId === undefined ? "/v1/events" : `/v1/jobs/${jobId}/events`
      for (let cursor = after;;) {
        const page = await expect<EventPageJson>("GET", `${base}?after=${cursor}&limit=1000`, 200)
        all.push(...page.data)
        if (page.data.length === 0) return all
        cursor = page.nextAfter
      }
    }
  }
}
export type Client = ReturnType<typeof client>

/** Waits until none of the Jobs is `interpreting` (the background interpreter has had its say). */
export const settled = async (api: Client, ids: ReadonlyArray<string>, within: number) => {
  const deadline = Date.now() + within
  for (;;) {
    const jobs = await Promise.all(ids.map(api.get))
    if (jobs.every((job) => job.status !== "interpreting")) return jobs
    if (Date.now() > deadline) throw new Error(`Jobs still interpreting after ${within} ms`)
    await sleep(50)
  }
}
