import { assert, describe, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Layer, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import * as JobsClient from "../src/client/JobsClient.ts"
import { parseEvents } from "../src/client/SseReader.ts"
import { CursorExpired, NotFound } from "../src/schema/ApiErrors.ts"
import type { JobEvent } from "../src/schema/JobEvent.ts"
import { JobStore } from "../src/services/jobs/JobStore.ts"
import { allEvents, client, create, quiet, readEventStream, revise } from "./support/Events.ts"
import { baseUrl } from "./support/Http.ts"
import type { PreviewServices } from "./support/JobsHttp.ts"
import { call, newIdempotencyKey, newKey, previewServerWith, servicesLive, servicesTest } from "./support/JobsHttp.ts"
import * as TcpProxy from "./support/TcpProxy.ts"
import * as TestDatabase from "./support/TestDatabase.ts"
import * as TestTime from "./support/TestTime.ts"
import * as WallClock from "./support/WallClock.ts"

/**
 * Reading events over HTTP (docs/API.md, "Events and views"): JSON pages and Server-Sent Events for one
 * Job and for the account, resumed by `?after=` or `Last-Event-ID`, live, and refused past retention;
 * on the in-memory layers and on the store.
 */

/**
 * A retention no test outlasts however slow the machine: the test of it moves the time past it
 * (TestTime), and not as far as a proposal's expiry (15 minutes), which would add to the old Job's history.
 */
const config = { EVENTS_HEARTBEAT: "200 millis", EVENTS_RETENTION: "10 minutes" }

const expectError = (response: { status: number; body: string }, status: number, code: string) => {
  assert.strictEqual(response.status, status, response.body)
  assert.strictEqual(JSON.parse(response.body).error, code)
}

const positions = (events: ReadonlyArray<JobEvent>) => events.map((event) => event.position)

const behaviour = <E>(name: string, services: Layer.Layer<PreviewServices | TestTime.TestTime, E>) =>
  layer(
    previewServerWith(services).pipe(
      Layer.provideMerge(FetchHttpClient.layer),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(config)))
    ),
    { excludeTestServices: true, timeout: "120 seconds" }
  )(name, (it) => {
    it.effect("pages the account's and a Job's events after a cursor; Last-Event-ID wins over after", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        const api = yield* client(key)
        const first = yield* create(api)
        const second = yield* create(api)
        yield* quiet(api)
        yield* revise(api, first.id, "by the window")
        yield* quiet(api)

        const events = yield* allEvents(api)
        assert.isAtLeast(events.length, 6)
        assert.deepStrictEqual(positions(events), [...positions(events)].sort((a, b) => a - b))
        assert.strictEqual(new Set(positions(events)).size, events.length)
        assert.deepStrictEqual(
          events.filter((event) => event.jobId === first.id).map((event) => event.type).slice(0, 1),
          ["job.created"]
        )
        const ofFirst = yield* allEvents(api, first.id)
        assert.deepStrictEqual(ofFirst, events.filter((event) => event.jobId === first.id))
        assert.isTrue(ofFirst.some((event) => event.type === "job.revised" && event.jobRevision === 2))
        assert.isTrue(events.some((event) => event.jobId === second.id))

        // A page after the third event holds exactly the rest; nextAfter is its last position.
        const rest = yield* api.Jobs.listEvents({ query: { after: events[2]!.position, limit: 1000 } })
        assert.deepStrictEqual(rest.data, events.slice(3))
        assert.strictEqual(rest.nextAfter, events.at(-1)!.position)
        const empty = yield* api.Jobs.listEvents({ query: { after: rest.nextAfter } })
        assert.deepStrictEqual(empty, { data: [], nextAfter: rest.nextAfter })

        const raw = yield* call(url, {
          path: `/v1/events?after=0&limit=2`,
          key,
          headers: { "last-event-id": String(events[0]!.position) }
        })
        assert.strictEqual(raw.status, 200)
        assert.deepStrictEqual(JSON.parse(raw.body).data, events.slice(1, 3))
      }))

    it.effect("refuses a bad cursor or limit (422) and another account's Job (404)", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        const other = yield* newKey()
        const job = yield* create(yield* client(key))
        for (
          const path of ["/v1/events?after=-1", "/v1/events?after=x", "/v1/events?limit=0", "/v1/events?limit=1001"]
        ) {
          expectError(yield* call(url, { path, key }), 422, "invalid_request")
        }
        expectError(
          yield* call(url, { path: "/v1/events", key, headers: { "last-event-id": "x" } }),
          422,
          "invalid_request"
        )
        expectError(yield* call(url, { path: `/v1/jobs/${job.id}/events`, key: other }), 404, "not_found")
        const badLimit = yield* readEventStream(url, "/v1/events?limit=0", { key, until: () => false })
        assert.strictEqual(badLimit.status, 422)
        const stream = yield* readEventStream(url, `/v1/jobs/${job.id}/events`, { key: other, until: () => false })
        assert.strictEqual(stream.status, 404)
        assert.strictEqual(JSON.parse(stream.text).error, "not_found")
        expectError(yield* call(url, { path: `/v1/jobs/${job.id}/events` }), 401, "unauthorized")
        const followed = yield* (yield* client(other)).follow({ jobId: job.id }).pipe(Stream.runCollect, Effect.flip)
        assert.instanceOf(followed, NotFound)
      }))

    it.effect("streams Server-Sent Events: retry first, each event with its position, type and JSON, live, with heartbeats", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        const api = yield* client(key)
        const job = yield* create(api)
        yield* quiet(api)
        const before = yield* allEvents(api)
        // Open the stream, then change the Job while it is open: the new events arrive on it.
        const reading = yield* readEventStream(url, `/v1/jobs/${job.id}/events`, {
          key,
          until: (text) =>
            parseEvents(text).some((event) => event.event === "work.invalidated") && /\n:\n\n/.test(text),
          timeoutMs: WallClock.patience(10_000)
        }).pipe(Effect.forkChild)
        yield* Effect.sleep("300 millis")
        yield* revise(api, job.id, "live")
        const read = yield* Fiber.join(reading)
        assert.strictEqual(read.status, 200)
        assert.match(String(read.headers["content-type"]), /^text\/event-stream/)
        assert.isTrue(read.text.startsWith("retry: 2000\n\n"), read.text)
        const received = parseEvents(read.text)
        const expected = [...before, ...(yield* allEvents(api)).slice(before.length)]
          .filter((event) => event.jobId === job.id)
          .slice(0, received.length)
        assert.deepStrictEqual(
          received.map((event) => [event.id, event.event, JSON.parse(event.data)]),
          expected.map((event) => [String(event.position), event.type, event])
        )
        assert.isTrue(received.some((event) => event.event === "job.revised"))
      }))

    it.effect("refuses a cursor past retention with 410 cursor_expired, as a page and as a stream", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        const api = yield* client(key)
        const old = yield* create(api)
        yield* quiet(api)
        const oldEvents = yield* allEvents(api)
        yield* TestTime.advance("11 minutes")
        const fresh = yield* create(api)
        yield* quiet(api)
        const pruned = yield* Effect.flatMap(JobStore, (store) => store.pruneEvents)
        assert.isAtLeast(pruned, oldEvents.length)

        const kept = yield* allEvents(api)
        const cursor = String(oldEvents[0]!.position)
        expectError(yield* call(url, { path: `/v1/events?after=${cursor}`, key }), 410, "cursor_expired")
        expectError(
          yield* call(url, { path: "/v1/events", key, headers: { "last-event-id": cursor } }),
          410,
          "cursor_expired"
        )
        const stream = yield* readEventStream(url, `/v1/events?after=${cursor}`, { key, until: () => false })
        assert.strictEqual(stream.status, 410)
        const followed = yield* api.follow({ after: oldEvents[0]!.position }).pipe(Stream.runCollect, Effect.flip)
        assert.instanceOf(followed, CursorExpired)
        // The old Job's history at a pruned position is past retention too; its revision is still there,
        // and so is the Job as it was at any later position (its last revision's snapshot says it all).
        expectError(yield* call(url, { path: `/v1/jobs/${old.id}?at=${cursor}`, key }), 410, "cursor_expired")
        assert.strictEqual((yield* call(url, { path: `/v1/jobs/${old.id}?revision=1`, key })).status, 200)
        const latest = kept.at(-1)!.position
        const then = JSON.parse((yield* call(url, { path: `/v1/jobs/${old.id}?at=${latest}`, key })).body)
        assert.deepStrictEqual(then.asOf, { jobRevision: 1, position: oldEvents.at(-1)!.position })
        // A Job the account does not have is 404, pruned or not.
        expectError(yield* call(url, { path: `/v1/jobs/job_nope?at=${latest}`, key }), 404, "not_found")
        // From the start (0), or from the last pruned position on, what is kept reads as before.
        assert.isTrue(kept.length > 0 && kept.every((event) => event.jobId === fresh.id))
        const last = String(oldEvents.at(-1)!.position)
        assert.strictEqual((yield* call(url, { path: `/v1/events?after=${last}`, key })).status, 200)
      }))

    it.effect("the typed client follows a stream and resumes by itself when its connection drops", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        const api = yield* client(key)
        const { port } = new URL(url)
        const proxy = yield* TcpProxy.make({ host: "127.0.0.1", port: Number(port) })
        const viaProxy = yield* JobsClient.make({ baseUrl: `http://127.0.0.1:${proxy.port}`, apiKey: key })
        const received: Array<JobEvent> = []
        const following = yield* viaProxy.follow({ reconnectAfter: "50 millis" }).pipe(
          Stream.runForEach((event) => Effect.sync(() => received.push(event))),
          Effect.forkChild
        )
        yield* create(api)
        yield* quiet(api)
        // The stream delivers on its own time (its tail coalesces a change's events): wait for it.
        for (let i = 0; i < 100 && received.length === 0; i++) yield* Effect.sleep("50 millis")
        assert.isAtLeast(received.length, 1)
        // Cut every connection; write while the reader is away; let it back in.
        yield* proxy.down
        yield* create(api, "A haircut in Porto tomorrow at 10am")
        yield* create(api, "Two tickets to Madrid")
        yield* quiet(api)
        yield* proxy.pass
        const all = yield* allEvents(api)
        for (let i = 0; i < 100 && received.length < all.length; i++) yield* Effect.sleep("50 millis")
        yield* Fiber.interrupt(following)
        assert.deepStrictEqual(received, all)
        assert.isAtLeast(yield* proxy.accepted, 2)
      }).pipe(Effect.scoped))

    it.effect("a reader that resumes while 8 writers commit gets every event exactly once, in order", () =>
      Effect.gen(function*() {
        const key = yield* newKey()
        const api = yield* client(key)
        const received: Array<JobEvent> = []
        let writing = true
        // The reader takes a few events at a time and reconnects after the last one, until the writers stop.
        const reader = Effect.gen(function*() {
          let after = 0
          let idle = 0
          while (writing || idle < 3) {
            const chunk = yield* api.follow({ after }).pipe(
              Stream.take(1 + Math.floor(Math.random() * 9)),
              Stream.interruptWhen(Effect.sleep("500 millis")),
              Stream.runCollect
            )
            received.push(...chunk)
            after = chunk.at(-1)?.position ?? after
            idle = chunk.length === 0 ? idle + 1 : 0
          }
        })
        const writer = (w: number) =>
          Effect.gen(function*() {
            for (let i = 0; i < 6; i++) {
              const job = yield* create(api, `Writer ${w} job ${i}: a table for 2 in Lisbon tomorrow at 8pm`)
              yield* revise(api, job.id, `writer ${w} change ${i}`)
              if (i % 2 === 0) {
                yield* api.Jobs.cancelJob({
                  params: { id: job.id },
                  headers: { "idempotency-key": newIdempotencyKey() }
                })
              }
            }
          })
        const reading = yield* Effect.forkChild(reader)
        yield* Effect.all(Array.from({ length: 8 }, (_, w) => writer(w)), { concurrency: "unbounded" })
        yield* quiet(api)
        writing = false
        yield* Fiber.join(reading)
        const all = yield* allEvents(api)
        assert.isAtLeast(all.length, 8 * 6 * 3)
        assert.strictEqual(received.length, all.length, "every event exactly once")
        assert.deepStrictEqual(received, all)
      }), 120_000)
  })

describe("reading events", () => {
  behaviour("in memory", servicesTest())
  behaviour(`on ${TestDatabase.kind}`, servicesLive(undefined, config))
})
