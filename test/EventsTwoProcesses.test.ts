/**
 * Live event streams across processes: two services (`node src/main.ts` with `JOBS_API=preview`) on
 * one PostgreSQL database, Jobs written through A while streams are open on B. B's streams receive
 * every event of A's writes once, in position order, and live (B's tail is woken by NOTIFY), and what
 * they received is what a JSON page of the events says once interpretation has settled. Real processes,
 * a real database: runs when `TEST_DATABASE_URL` names a PostgreSQL server (as `.ci/run` does); the
 * embedded store serves one process only.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration } from "effect"
import { once } from "node:events"
import http from "node:http"
import { performance } from "node:perf_hooks"
import * as SseReader from "../src/client/SseReader.ts"
import type { JobEvent as JobEventSchema } from "../src/schema/JobEvent.ts"
import { caller, createKey, database, kill, sleep, start } from "./support/ServiceProcess.ts"
import type { ServiceProcess } from "./support/ServiceProcess.ts"

const adminUrl = process.env.TEST_DATABASE_URL

interface JobView {
  readonly id: string
  readonly jobRevision: number
  readonly status: string
  readonly updatedAt: string
}

/** An event as the API sends it. */
type JobEvent = typeof JobEventSchema.Encoded

const api = (base: string, key: string) => {
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

interface Received {
  readonly event: JobEvent
  /** `performance.now()` when the event was parsed off the wire. */
  readonly at: number
}

/** An SSE stream off Node's http response, read with the service's own reader (`SseReader`). */
const openStream = async (base: string, path: string, key: string) => {
  const received: Array<Received> = []
  const state = {
    heartbeats: 0,
    ended: undefined as string | undefined,
    // `retry:` as read, with the number of events before it (the service sends it first).
    retry: undefined as { readonly millis: number; readonly after: number } | undefined
  }
  const request = http.get(`${base}${path}`, {
    headers: { accept: "text/event-stream", authorization: `Bearer ${key}` }
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

type Stream = Awaited<ReturnType<typeof openStream>>

const waitFor = async (what: string, within: number, done: () => boolean | Promise<boolean>) => {
  const deadline = Date.now() + within
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not within ${within} ms: ${what}`)
    await sleep(20)
  }
}

/**
 * Until no Job is interpreting, each one's last change is published (a page shows only what no open
 * transaction anywhere on the server can precede, which other suites' transactions may hold back), and
 * the account's events have not grown for a second; answers them.
 */
const settle = async (client: ReturnType<typeof api>, ids: ReadonlyArray<string>) => {
  const deadline = Date.now() + 20_000
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

const positions = (events: ReadonlyArray<JobEvent>) => events.map((event) => event.position)

/** Positions strictly increasing: each event once, in order. */
const assertOnceInOrder = (name: string, stream: Stream) => {
  const seen = positions(stream.received.map((r) => r.event))
  for (let i = 1; i < seen.length; i++) {
    assert.isAbove(seen[i]!, seen[i - 1]!, `${name}: position ${seen[i]} after ${seen[i - 1]} (${seen.join(", ")})`)
  }
}

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

describe.skipIf(adminUrl === undefined)("event streams across two processes on PostgreSQL", () => {
  it("delivers every event written through A live on B's streams, once and in order", { timeout: 60_000 }, async () => {
    const store = await database(adminUrl!, "events_two")
    await store.create()
    const { env } = store
    const services: Array<ServiceProcess> = []
    const streams: Array<Stream> = []
    try {
      // A first (it migrates the new database), then B, whose streams say they are alive every second.
      const a = await start(env, { onSpawn: (service) => services.push(service) })
      const b = await start({ ...env, EVENTS_HEARTBEAT: "1 second" }, { onSpawn: (service) => services.push(service) })
      const key = createKey(env, "events")
      const onA = api(a.base, key)
      const onB = api(b.base, key)

      // A Job through A before any stream is open, and its interpretation settled.
      const first = await onA.create()
      const before = await settle(onA, [first.id])
      assert.isAtLeast(before.length, 2)

      // B's streams: the account's and the first Job's, from the start.
      const all = await openStream(b.base, "/v1/events", key)
      streams.push(all)
      const one = await openStream(b.base, `/v1/jobs/${first.id}/events`, key)
      streams.push(one)
      await waitFor("B's streams read what was there", 10_000, () =>
        all.received.length >= before.length
        && one.received.length >= before.filter((e) => e.jobId === first.id).length)
      assert.deepStrictEqual(all.received.map((r) => r.event), before)
      assert.deepStrictEqual(all.state.retry, { millis: 2000, after: 0 })
      assert.deepStrictEqual(one.state.retry, { millis: 2000, after: 0 })
      // What B read at connect time is behind it: everything from here on was written while it was open.
      await sleep(500)
      const openAt = performance.now()
      const connectedUpTo = before.at(-1)!.position
      assert.strictEqual(all.received.length, before.length, "nothing new was written meanwhile")

      // Writes through A, one at a time: five Jobs, three changes of constraints, two cancellations.
      interface Write {
        readonly name: string
        readonly sentAt: number
        readonly answeredAt: number
        /** The write's first event: which Job, revision and type. */
        readonly first: { readonly jobId: string; readonly jobRevision: number; readonly type: string }
      }
      const writes: Array<Write> = []
      const write = async (name: string, type: string, send: () => Promise<JobView>) => {
        const sentAt = performance.now()
        const job = await send()
        writes.push({
          name,
          sentAt,
          answeredAt: performance.now(),
          first: { jobId: job.id, jobRevision: job.jobRevision, type }
        })
        return job
      }
      const created: Array<JobView> = []
      for (let i = 0; i < 5; i++) created.push(await write(`create ${i + 1}`, "job.created", onA.create))
      await write("constraints of the first Job", "job.revised", () => onA.constrain(first, "by the window"))
      await write("constraints of Job 1", "job.revised", () => onA.constrain(created[0]!, "quiet table"))
      await write("constraints of Job 3", "job.revised", () => onA.constrain(created[2]!, "no stairs"))
      await write("cancel Job 4", "job.cancelled", () => onA.cancel(created[3]!))
      await write("cancel the first Job", "job.cancelled", () => onA.cancel(first))

      // Once interpretation has settled, the JSON page (the same on A and on B) is what B's streams received.
      const ids = [first.id, ...created.map((job) => job.id)]
      const page = await settle(onA, ids)
      assert.deepStrictEqual(await onB.events(), page, "A and B answer the same page")
      const last = page.at(-1)!.position
      await waitFor(
        "B's account stream reached the page's last event",
        10_000,
        () => all.received.some((r) => r.event.position >= last)
      )
      const jobPage = await onA.events(`/v1/jobs/${first.id}/events`)
      await waitFor(
        "B's Job stream reached the Job's last event",
        10_000,
        () => one.received.some((r) => r.event.position >= jobPage.at(-1)!.position)
      )
      await sleep(300) // anything more (a duplicate) would arrive now
      for (const stream of streams) assert.isUndefined(stream.state.ended, "the stream stayed open")
      assertOnceInOrder("/v1/events on B", all)
      assertOnceInOrder(`/v1/jobs/${first.id}/events on B`, one)
      assert.deepStrictEqual(all.received.map((r) => r.event), page)
      assert.deepStrictEqual(jobPage, page.filter((event) => event.jobId === first.id))
      assert.deepStrictEqual(one.received.map((r) => r.event), jobPage)

      // Each write's first event reached B live: it did not exist when B's streams connected, and it
      // arrived while they were open.
      const delays = writes.map((w) => {
        const match = (event: JobEvent) =>
          event.jobId === w.first.jobId && event.jobRevision === w.first.jobRevision && event.type === w.first.type
        const got = all.received.find((r) => match(r.event))
        assert.isDefined(got, `${w.name}: its first event reached B`)
        assert.isAbove(got!.event.position, connectedUpTo, `${w.name}: written after B connected`)
        assert.isAbove(got!.at, openAt, `${w.name}: received while B's stream was open`)
        assert.isAbove(got!.at, w.sentAt, `${w.name}: received after it was sent to A`)
        if (w.first.jobId === first.id) {
          assert.isDefined(one.received.find((r) => match(r.event)), `${w.name}: on B's Job stream too`)
        }
        return { name: w.name, position: got!.event.position, delay: got!.at - w.answeredAt }
      })
      const sorted = delays.map((d) => d.delay).sort((x, y) => x - y)
      const p50 = percentile(sorted, 50)
      const max = sorted.at(-1)!
      console.log(
        `B received ${all.received.length} events on /v1/events (${one.received.length} on the Job's stream, `
          + `${all.state.heartbeats} heartbeats); delay from A's answer to B's receipt of the write's first event `
          + `over ${delays.length} writes: p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms\n`
          + delays.map((d) => `  ${d.name} (position ${d.position}): ${d.delay.toFixed(1)} ms`).join("\n")
      )
      // A sanity bound only (the figure is milliseconds). B's tail also looks every 10 s without a
      // wake-up, so a median under 2 s is the NOTIFY from A's transaction waking B.
      for (const d of delays) assert.isBelow(d.delay, 10_000, `${d.name}: live`)
      assert.isBelow(p50, 2_000, "woken by NOTIFY, not by the 10 s poll")
      assert.isAbove(all.state.heartbeats, 0, "a heartbeat each second")
    } finally {
      for (const stream of streams) stream.close()
      await Promise.all(services.map((service) => kill(service.child, "SIGTERM")))
      await store.drop()
    }
  })
})
