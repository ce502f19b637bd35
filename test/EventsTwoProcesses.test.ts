/**
 * Live event streams across processes: two services (`node src/main.ts` with `JOBS_API=preview`) on
 * one PostgreSQL database, Jobs written through A while streams are open on B. B's streams receive
 * every event of A's writes once, in position order, and live (B's tail is woken by NOTIFY), and what
 * they received is what a JSON page of the events says once interpretation has settled. Real processes,
 * a real database: runs when `TEST_DATABASE_URL` names a PostgreSQL server (as `.ci/run` does); the
 * embedded store serves one process only.
 */
import { assert, describe, it } from "@effect/vitest"
import { performance } from "node:perf_hooks"
import type { JobEvent, JobView, Stream } from "./support/ProcessStreams.ts"
import { api, assertOnceInOrder, openStream, settle, waitFor } from "./support/ProcessStreams.ts"
import { createKey, database, kill, sleep, start } from "./support/ServiceProcess.ts"
import type { ServiceProcess } from "./support/ServiceProcess.ts"
import * as WallClock from "./support/WallClock.ts"

const adminUrl = process.env.TEST_DATABASE_URL

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

describe.skipIf(adminUrl === undefined)(
  "event streams across two processes on PostgreSQL (needs TEST_DATABASE_URL)",
  () => {
    it(
      "delivers every event written through A live on B's streams, once and in order",
      { timeout: 240_000 },
      async () => {
        const store = await database(adminUrl!, "events_two")
        await store.create()
        const { env } = store
        const services: Array<ServiceProcess> = []
        const streams: Array<Stream> = []
        try {
          // A first (it migrates the new database), then B, whose streams say they are alive every second.
          const a = await start(env, { onSpawn: (service) => services.push(service) })
          const b = await start({ ...env, EVENTS_HEARTBEAT: "1 second" }, {
            onSpawn: (service) => services.push(service)
          })
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
          await waitFor("B's streams read what was there", () =>
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
            () => all.received.some((r) => r.event.position >= last)
          )
          const jobPage = await onA.events(`/v1/jobs/${first.id}/events`)
          await waitFor(
            "B's Job stream reached the Job's last event",
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
          // B's tail also looks every 10 s without a wake-up, so a median under 2 s is the NOTIFY from A's
          // transaction waking B: a bound on time, asserted by test:faults only (test/support/WallClock.ts).
          if (WallClock.bounded) {
            for (const d of delays) assert.isBelow(d.delay, 10_000, `${d.name}: live`)
            assert.isBelow(p50, 2_000, "woken by NOTIFY, not by the 10 s poll")
          }
          assert.isAbove(all.state.heartbeats, 0, "a heartbeat each second")
        } finally {
          for (const stream of streams) stream.close()
          await Promise.all(services.map((service) => kill(service.child, "SIGTERM")))
          await store.drop()
        }
      }
    )
  }
)
