import { assert, layer } from "@effect/vitest"
import { Cause, Effect, Layer } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { baseUrl } from "./support/Http.ts"
import {
  budget,
  call,
  createJob,
  expectError,
  newIdempotencyKey,
  newKey,
  previewServerWith,
  servicesLive,
  settled,
  tableRequest
} from "./support/JobsHttp.ts"
import * as Logs from "./support/Logs.ts"
import * as TestDatabase from "./support/TestDatabase.ts"

/** The Job API over rows written by older versions of the service, and over rows it cannot read. */

const storeLogs = Logs.collect()
// The same layer twice is built once: the tests reach the server's store through it.
const storeServices = servicesLive()

/** A Job that has asked its question, and its row as stored. */
const askingJob = (url: string, key: string, request: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const created = yield* createJob(url, key, { request, constraints: [budget] })
    assert.strictEqual(created.status, 201, created.body)
    const job = yield* settled(url, key, JSON.parse(created.body).id)
    assert.strictEqual(job.status, "awaiting_input")
    const [row] = yield* sql<{ readonly record: string }>`SELECT record FROM jobs WHERE id = ${job.id}`
    return { job, record: row!.record }
  })

layer(Layer.merge(previewServerWith(storeServices), storeServices).pipe(Layer.provide(storeLogs.layer)), {
  excludeTestServices: true,
  timeout: "120 seconds"
})(`the Job API over rows of older versions, and rows it cannot read (${TestDatabase.kind})`, (it) => {
  it.effect("shows and changes a Job stored by Part 1, which kept none of the work's members", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const key = yield* newKey()
      const sql = yield* SqlClient.SqlClient
      const { job, record } = yield* askingJob(url, key, tableRequest)
      const {
        cancelling: _cancelling,
        decided: _decided,
        excludedOffers: _excludedOffers,
        execution: _execution,
        executions: _executions,
        outcome: _outcome,
        proposal: _proposal,
        run: _run,
        ...partOne
      } = JSON.parse(record)
      yield* sql`UPDATE jobs SET record = ${JSON.stringify(partOne)} WHERE id = ${job.id}`
      const shown = yield* call(url, { path: `/v1/jobs/${job.id}`, key })
      assert.strictEqual(shown.status, 200, shown.body)
      assert.deepStrictEqual(JSON.parse(shown.body), job)
      const answered = yield* call(url, {
        path: `/v1/jobs/${job.id}/input`,
        key,
        idempotencyKey: newIdempotencyKey(),
        body: { jobRevision: 1, answers: { q_date: "next Friday at 8pm" } }
      })
      assert.strictEqual(answered.status, 200, answered.body)
      assert.strictEqual((yield* settled(url, key, job.id)).status, "awaiting_approval")
      const [row] = yield* sql<{ readonly record: string }>`SELECT record FROM jobs WHERE id = ${job.id}`
      const stored = JSON.parse(row!.record)
      assert.isNotNull(stored.proposal)
      assert.deepStrictEqual(stored.answers.map((answer: { readonly revision: number }) => answer.revision), [2])
    }))

  it.effect("answers 503 for a Job whose row it cannot read, logs where, and serves the account's other Jobs", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const key = yield* newKey()
      const sql = yield* SqlClient.SqlClient
      const secret = "Book a table for 4 at the secret restaurant in Lisbon"
      const broken = yield* askingJob(url, key, secret)
      const sound = yield* askingJob(url, key, tableRequest)
      const id = broken.job.id
      const expectUnavailable = (path: string, options: { readonly body?: unknown } = {}) =>
        Effect.map(
          call(url, {
            path,
            key,
            ...(options.body === undefined ? {} : { body: options.body, idempotencyKey: newIdempotencyKey() })
          }),
          (response) => {
            assert.strictEqual(response.status, 503, `${path}: ${response.body}`)
            expectError(response, 503, "unavailable")
            assert.strictEqual(response.headers["retry-after"], "5")
          }
        )
      /** Runs `check` while `corrupt` holds, then puts the row back as it was. */
      const whileCorrupt =
        <A, E, R>(corrupt: Effect.Effect<unknown, E, R>, restore: Effect.Effect<unknown, E, R>) =>
        (check: Effect.Effect<A, E, R>) => Effect.acquireUseRelease(corrupt, () => check, () => Effect.orDie(restore))

      const logged = storeLogs.entries.length
      yield* whileCorrupt(
        sql`UPDATE jobs SET record = ${JSON.stringify({ ...JSON.parse(broken.record), status: "lost" })}
          WHERE id = ${id}`,
        sql`UPDATE jobs SET record = ${broken.record} WHERE id = ${id}`
      )(Effect.gen(function*() {
        yield* expectUnavailable(`/v1/jobs/${id}`)
        yield* expectUnavailable("/v1/jobs")
        yield* expectUnavailable(`/v1/jobs/${id}/cancel`, { body: {} })
        const other = yield* call(url, { path: `/v1/jobs/${sound.job.id}`, key })
        assert.strictEqual(other.status, 200, other.body)
      }))
      yield* whileCorrupt(
        sql`UPDATE jobs SET record = ${"{"} WHERE id = ${id}`,
        sql`UPDATE jobs SET record = ${broken.record} WHERE id = ${id}`
      )(expectUnavailable(`/v1/jobs/${id}`))
      const [revision] = yield* sql<{ readonly snapshot: string }>`
        SELECT snapshot FROM job_revisions WHERE job_id = ${id} AND revision = 1`
      yield* whileCorrupt(
        sql`UPDATE job_revisions SET snapshot = ${"{}"} WHERE job_id = ${id} AND revision = 1`,
        sql`UPDATE job_revisions SET snapshot = ${revision!.snapshot} WHERE job_id = ${id} AND revision = 1`
      )(Effect.gen(function*() {
        yield* expectUnavailable(`/v1/jobs/${id}?revision=1`)
        assert.strictEqual((yield* call(url, { path: `/v1/jobs/${id}`, key })).status, 200)
      }))
      const [event] = yield* sql<{ readonly position: string; readonly data: string }>`
        SELECT position::text AS position, data FROM job_events WHERE job_id = ${id} ORDER BY position LIMIT 1`
      yield* whileCorrupt(
        sql`UPDATE job_events SET data = ${"not JSON"} WHERE position = ${event!.position}::bigint`,
        sql`UPDATE job_events SET data = ${event!.data} WHERE position = ${event!.position}::bigint`
      )(expectUnavailable(`/v1/jobs/${id}/events`))

      // Put back, the Job reads as before and takes commands again.
      const shown = yield* call(url, { path: `/v1/jobs/${id}`, key })
      assert.deepStrictEqual(JSON.parse(shown.body), broken.job)
      const cancelled = yield* call(url, {
        path: `/v1/jobs/${id}/cancel`,
        key,
        idempotencyKey: newIdempotencyKey(),
        body: {}
      })
      assert.strictEqual(cancelled.status, 200, cancelled.body)

      // Each 503 is a defect, logged as an error with its cause, which names the place in the row, never the data.
      const unreadable = storeLogs.entries.slice(logged).filter((entry) =>
        entry.level === "Error" && Cause.pretty(entry.cause).includes("UnreadableRow")
      )
      // One for each 503: three reads of the record, the unparsable record, the snapshot and the event.
      assert.strictEqual(unreadable.length, 6, unreadable.map((entry) => entry.message).join("\n"))
      for (const entry of unreadable) assert.notInclude(Cause.pretty(entry.cause), "secret", entry.message)
      assert.include(Cause.pretty(unreadable[0]!.cause), `at ["record"]["status"]`)
    }))
})
