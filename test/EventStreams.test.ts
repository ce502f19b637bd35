import { assert, describe, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Stream } from "effect"
import { FetchHttpClient } from "effect/http"
import { parseEvents } from "../src/client/SseReader.ts"
import { TooManyStreams } from "../src/schema/ApiErrors.ts"
import type { JobEvent } from "../src/schema/JobEvent.ts"
import type { OpenStream } from "./support/Events.ts"
import { allEvents, client, create, openEventStream, quiet, readEventStream, revise } from "./support/Events.ts"
import { baseUrl } from "./support/Http.ts"
import type { PreviewServices } from "./support/JobsHttp.ts"
import { call, newKey, previewServerWith, servicesLive, servicesTest } from "./support/JobsHttp.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

/**
 * Many event streams on one process (docs/API.md, "Events and views"): every stream of an account is fed
 * from one tail with the same bytes, and still gets exactly its own events, once and in order, whatever
 * its cursor or Job; and an account holds at most `EVENTS_MAX_STREAMS_PER_ACCOUNT` streams, beyond which
 * it is told so (429 `too_many_streams`).
 */

const server = <E>(services: Layer.Layer<PreviewServices, E>, config: Record<string, string>) =>
  previewServerWith(services).pipe(
    Layer.provideMerge(FetchHttpClient.layer),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(config)))
  )

const isOpen = (text: string) => text.startsWith("retry: 2000\n\n")

/** Waits until `done` holds, for at most `seconds`. */
const eventually = (done: () => boolean, seconds = 30) =>
  Effect.gen(function*() {
    for (let i = 0; i < seconds * 20 && !done(); i++) yield* Effect.sleep("50 millis")
    return done()
  })

const limitConfig = { EVENTS_HEARTBEAT: "200 millis", EVENTS_MAX_STREAMS_PER_ACCOUNT: "3" }

layer(server(servicesTest(), limitConfig), { excludeTestServices: true, timeout: "60 seconds" })(
  "the streams one account may hold",
  (it) => {
    it.effect("a stream beyond EVENTS_MAX_STREAMS_PER_ACCOUNT is 429 too_many_streams; closing one frees its place", () =>
      Effect.gen(function*() {
        const url = yield* baseUrl
        const key = yield* newKey()
        const api = yield* client(key)
        const job = yield* create(api)
        const held: Array<OpenStream> = []
        for (const path of ["/v1/events", "/v1/events?after=0", `/v1/jobs/${job.id}/events`]) {
          const stream = yield* openEventStream(url, path, { key })
          assert.strictEqual(yield* stream.status, 200)
          held.push(stream)
        }

        for (const path of ["/v1/events", `/v1/jobs/${job.id}/events`]) {
          const refused = yield* call(url, { path, key, headers: { accept: "text/event-stream" } })
          assert.strictEqual(refused.status, 429, refused.body)
          assert.match(String(refused.headers["content-type"]), /^application\/json/)
          const body = JSON.parse(refused.body)
          assert.strictEqual(body.error, "too_many_streams")
          assert.match(body.message, /3 open event streams/)
        }
        const followed = yield* api.follow({}).pipe(Stream.runCollect, Effect.flip)
        assert.instanceOf(followed, TooManyStreams)
        // JSON pages are not streams, and another account has places of its own.
        assert.strictEqual((yield* call(url, { path: "/v1/events", key })).status, 200)
        const other = yield* readEventStream(url, "/v1/events", { key: yield* newKey(), until: isOpen })
        assert.strictEqual(other.status, 200)

        // The held streams are alive (heartbeats), and a place frees up once one of them is closed.
        assert.isTrue(yield* eventually(() => held.every((stream) => /\n:\n\n/.test(stream.text()))))
        yield* held[0]!.close
        let reopened = 0
        for (let i = 0; i < 100 && reopened !== 200; i++) {
          if (i > 0) yield* Effect.sleep("50 millis")
          reopened = (yield* readEventStream(url, "/v1/events", { key, until: isOpen })).status
        }
        assert.strictEqual(reopened, 200)
      }).pipe(Effect.scoped))
  }
)

interface Reader {
  readonly stream: OpenStream
  readonly jobId: string | undefined
  readonly after: number
}

const fanOut = <E>(name: string, services: Layer.Layer<PreviewServices, E>) =>
  layer(server(services, { EVENTS_MAX_STREAMS_PER_ACCOUNT: "1000" }), {
    excludeTestServices: true,
    timeout: "120 seconds"
  })(name, (it) => {
    it.effect(
      "200 streams of one account, opened before and while 4 writers commit, each get exactly their events in order",
      () =>
        Effect.gen(function*() {
          const url = yield* baseUrl
          const key = yield* newKey()
          const api = yield* client(key)
          const jobs = [yield* create(api), yield* create(api, "A haircut in Porto tomorrow at 10am")]
          yield* quiet(api)
          const history = yield* allEvents(api)
          const middle = history[Math.floor(history.length / 2)]!.position

          const readers: Array<Reader> = []
          /** Streams of every kind: the account from the start, from the middle (Last-Event-ID), one Job. */
          const open = (count: number) =>
            Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) => {
              const jobId = i % 3 === 2 ? jobs[i % 2]!.id : undefined
              const after = i % 3 === 1 ? middle : 0
              const path = jobId === undefined ? "/v1/events" : `/v1/jobs/${jobId}/events`
              return Effect.map(
                openEventStream(url, path, { key, headers: after === 0 ? {} : { "last-event-id": String(after) } }),
                (stream) => readers.push({ stream, jobId, after })
              )
            }, { concurrency: 20 })

          const writer = (w: number) =>
            Effect.gen(function*() {
              for (let i = 0; i < 4; i++) {
                const job = yield* create(api, `Writer ${w} job ${i}: a table for 2 in Lisbon tomorrow at 8pm`)
                yield* revise(api, job.id, `writer ${w} change ${i}`)
                // One writer per earlier Job, so that its Job-only streams have live events too.
                if (w < jobs.length) yield* revise(api, jobs[w]!.id, `writer ${w} changes an earlier Job, ${i}`)
              }
            })
          yield* open(100)
          yield* Effect.all([open(100), ...Array.from({ length: 4 }, (_, w) => writer(w))], {
            concurrency: "unbounded"
          })
          yield* quiet(api)
          const all = yield* allEvents(api)
          assert.isAtLeast(all.length, history.length + 4 * 4 * 2 + 2 * 4)

          const expected = (reader: Reader) =>
            all.filter((event) =>
              event.position > reader.after && (reader.jobId === undefined || event.jobId === reader.jobId)
            )
          const received = (reader: Reader) => parseEvents(reader.stream.text())
          yield* eventually(() => readers.every((reader) => received(reader).length >= expected(reader).length))
          for (const [i, reader] of readers.entries()) {
            assert.strictEqual(yield* reader.stream.status, 200)
            assert.isFalse(reader.stream.ended(), `stream ${i} ended`)
            const got = received(reader)
            const want = expected(reader)
            assert.deepStrictEqual(
              got.map((event) => event.id),
              want.map((event) => String(event.position)),
              `stream ${i} (after ${reader.after}, Job ${reader.jobId ?? "any"})`
            )
            if (i % 10 === 0) {
              assert.deepStrictEqual(
                got.map((event) => [event.event, JSON.parse(event.data) as JobEvent]),
                want.map((event) => [event.type, event])
              )
            }
          }
        }).pipe(Effect.scoped),
      120_000
    )
  })

describe("many event streams", () => {
  fanOut("in memory", servicesTest())
  fanOut(`on ${TestDatabase.kind}`, servicesLive())
})
