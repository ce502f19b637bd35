import * as Effect from "effect/Effect"
import type * as HttpClient from "effect/http/HttpClient"
import { parseEvents } from "../client/SseReader.ts"
import type { JobEvent } from "../schema/JobEvent.ts"
import { EventPage, JobAsOf } from "../schema/JobEvent.ts"
import type { Check } from "./Check.ts"
import {
  check,
  Deadline,
  decode,
  expectError,
  expectHeader,
  expectStatus,
  expectThat,
  once,
  parseJson,
  show
} from "./Check.ts"
import { readStream } from "./Http.ts"
import type { JobApi } from "./JobApi.ts"
import type { Mismatch } from "./Mismatch.ts"

/**
 * A Job's events (docs/API.md, "Events and views"): as a JSON page, as a live stream and resumed, and the
 * Job as it was at its first revision. `jobId` is a Job that has been through two revisions.
 */
export const eventChecks = (
  api: JobApi,
  jobId: Effect.Effect<string, Mismatch, HttpClient.HttpClient>
): ReadonlyArray<Check> => {
  const readPage = (id: string, query = "") =>
    api.get(`/v1/jobs/${id}/events${query}`).pipe(
      Effect.tap((answer) => expectStatus(answer, 200)),
      Effect.flatMap(parseJson),
      Effect.flatMap(decode(EventPage, "a page of events {data, nextAfter}"))
    )

  /** The Job's events once its work has stopped, so that every reading sees the same history. */
  const history = once(
    "the Job's events",
    Effect.gen(function*() {
      const id = yield* jobId
      yield* api.settled(id)
      return { id, events: (yield* readPage(id, "?limit=1000")).data }
    })
  )

  const positions = (events: ReadonlyArray<{ readonly position: number }>) => events.map((e) => e.position).join(",")

  const page = Effect.gen(function*() {
    const { events, id } = yield* history
    const increasing = events.every((event, i) => i === 0 || event.position > events[i - 1]!.position)
    yield* expectThat(
      events.length >= 4 && increasing && events[0]?.type === "job.created" && events.every((e) => e.jobId === id),
      "job.created first, then its other events (at least 4), at increasing positions, all of this Job",
      events.map((event) => `${event.position} ${event.type}`).join(", ")
    )
    const first = events[0]!
    const rest = yield* readPage(id, `?after=${first.position}&limit=1000`)
    yield* expectThat(
      positions(rest.data) === positions(events.slice(1)) && rest.nextAfter === events.at(-1)!.position,
      `after=${first.position}: every later event (${positions(events.slice(1))}), nextAfter the last`,
      `${positions(rest.data)}, nextAfter ${rest.nextAfter}`
    )
    const empty = yield* readPage(id, `?after=${rest.nextAfter}`)
    yield* expectThat(
      empty.data.length === 0 && empty.nextAfter === rest.nextAfter,
      `after the last: no event, nextAfter ${rest.nextAfter}`,
      `${positions(empty.data)}, nextAfter ${empty.nextAfter}`
    )
  })

  /** The stream until `count` events have come (or 5 s, or the check's deadline): what came, as SSE messages. */
  const stream = (id: string, count: number, headers: Record<string, string> = {}) =>
    Effect.gen(function*() {
      const deadline = yield* Deadline
      const answer = yield* readStream(
        api.baseUrl,
        { path: `/v1/jobs/${id}/events`, headers: { ...api.auth, accept: "text/event-stream", ...headers } },
        (text) => parseEvents(text).length >= count,
        Math.max(0, Math.min(5000, deadline - Date.now()))
      )
      yield* expectStatus(answer, 200)
      yield* expectThat(
        (answer.headers["content-type"] ?? "").startsWith("text/event-stream"),
        "content-type: text/event-stream",
        `content-type: ${answer.headers["content-type"]}`
      )
      return { answer, messages: parseEvents(answer.body) }
    })

  const sameEvents = (messages: ReturnType<typeof parseEvents>, events: ReadonlyArray<JobEvent>) =>
    messages.length === events.length && messages.every((message, i) => {
      const event = events[i]!
      return message.id === String(event.position) && message.event === event.type
        && JSON.stringify(JSON.parse(message.data)) === JSON.stringify(event)
    })

  const showMessages = (messages: ReturnType<typeof parseEvents>) =>
    messages.map((message) => `${message.id} ${message.event}`).join(", ") || "no event"

  const live = Effect.gen(function*() {
    const { events, id } = yield* history
    const { answer, messages } = yield* stream(id, events.length)
    yield* expectThat(
      answer.body.startsWith("retry: 2000\n"),
      "a first line retry: 2000",
      JSON.stringify(answer.body.slice(0, 40))
    )
    yield* expectThat(
      sameEvents(messages.slice(0, events.length), events),
      `the page's events as id:/event:/data: (${events.map((e) => `${e.position} ${e.type}`).join(", ")})`,
      showMessages(messages)
    )
  })

  const resumed = Effect.gen(function*() {
    const { events, id } = yield* history
    const later = events.slice(1)
    const { messages } = yield* stream(id, later.length, { "last-event-id": String(events[0]!.position) })
    yield* expectThat(
      sameEvents(messages.slice(0, later.length), later) && messages.length === later.length,
      `only the events after ${events[0]!.position}: ${positions(later)}`,
      showMessages(messages)
    )
  })

  const view = Effect.gen(function*() {
    const { events, id } = yield* history
    const answer = yield* api.get(`/v1/jobs/${id}?revision=1`)
    yield* expectStatus(answer, 200)
    const job = yield* Effect.flatMap(parseJson(answer), decode(JobAsOf, "a Job with asOf"))
    const lastOfFirst = events.filter((event) => event.jobRevision === 1).at(-1)
    yield* expectThat(
      job.jobRevision === 1 && job.status === "awaiting_input" && job.questions.length > 0
        && job.asOf.jobRevision === 1 && job.asOf.position === lastOfFirst?.position,
      `revision 1, awaiting_input with its question, asOf {jobRevision: 1, position: ${lastOfFirst?.position}}`,
      show(answer)
    )
    yield* expectError(yield* api.get(`/v1/jobs/${id}?revision=99`), 404, "not_found")
  })

  return [
    check("events page: positions increase, after= resumes, nextAfter is the last position", page),
    check("events stream: Accept text/event-stream gives retry:, then id:/event:/data: per event", live),
    check("events stream: Last-Event-ID resumes with only the later events", resumed),
    check("jobs view: ?revision=1 is the Job as it was, with asOf; a revision never made is 404", view),
    check(
      "events stream: without a key it is 401",
      Effect.gen(function*() {
        const { id } = yield* history
        const answer = yield* readStream(
          api.baseUrl,
          { path: `/v1/jobs/${id}/events`, headers: { accept: "text/event-stream" } },
          () => true,
          "5 seconds"
        )
        yield* expectError(answer, 401, "unauthorized")
        yield* expectHeader(answer, "www-authenticate", "Bearer")
      })
    )
  ]
}
