/**
 * Event streams served by the stream process (`EVENTS_STREAM_PROCESS`, on by default on PostgreSQL): the
 * service authenticates a stream, checks it, and hands its connection over. A handed-over stream gets
 * every event once and in order, the account's limit holds across the two processes, a stream process
 * that dies is replaced (its clients resume), and stopping the service ends its streams and the stream
 * process. Real processes and a real database: runs when `TEST_DATABASE_URL` names a PostgreSQL server.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readFileSync } from "node:fs"
import { getPriority } from "node:os"
import type { Stream } from "./support/ProcessStreams.ts"
import { api, assertOnceInOrder, openStream, settle, waitFor } from "./support/ProcessStreams.ts"
import { createKey, database, kill, sleep, start } from "./support/ServiceProcess.ts"
import type { ServiceProcess } from "./support/ServiceProcess.ts"
import * as WallClock from "./support/WallClock.ts"

const adminUrl = process.env.TEST_DATABASE_URL

const childrenOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ").filter((c) => c !== "")
      .map(Number)
  } catch {
    return []
  }
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe.skipIf(adminUrl === undefined || process.platform !== "linux")(
  "the stream process (needs TEST_DATABASE_URL, on Linux)",
  () => {
    it(
      "serves handed-over streams once and in order, holds the limit, is replaced when it dies, and stops with the service",
      { timeout: 240_000 },
      async () => {
        const store = await database(adminUrl!, "stream_process")
        await store.create()
        const services: Array<ServiceProcess> = []
        const streams: Array<Stream> = []
        try {
          const service = await start(
            { ...store.env, EVENTS_MAX_STREAMS_PER_ACCOUNT: "2", EVENTS_HEARTBEAT: "1 second" },
            { onSpawn: (service) => services.push(service) }
          )
          const pid = service.child.pid!
          const key = createKey(store.env, "streams")
          const client = api(service.base, key)
          const first = await client.create()
          const before = await settle(client, [first.id])

          const all = await openStream(service.base, "/v1/events", key)
          streams.push(all)
          const one = await openStream(service.base, `/v1/jobs/${first.id}/events`, key)
          streams.push(one)
          const [streamProcess] = childrenOf(pid)
          assert.isDefined(streamProcess, "the service has a stream process")
          // Behind the writers: its niceness, and that of its session's scheduling group where Linux has them.
          assert.strictEqual(getPriority(streamProcess!), 10)
          const autogroup = `/proc/${streamProcess}/autogroup`
          if (existsSync(autogroup)) assert.match(readFileSync(autogroup, "utf8"), /nice 10$/m)

          // The limit is the service's, though the streams are the stream process's.
          const refused = await fetch(`${service.base}/v1/events`, {
            headers: { accept: "text/event-stream", authorization: `Bearer ${key}` }
          })
          assert.strictEqual(refused.status, 429)
          assert.strictEqual((await refused.json()).error, "too_many_streams")

          // Writes while the streams are open reach them once, in order, and nothing else does.
          const created = [await client.create(), await client.create()]
          await client.constrain(first, "by the window")
          await client.cancel(created[1]!)
          const page = await settle(client, [first.id, ...created.map((job) => job.id)])
          assert.isAbove(page.length, before.length)
          await waitFor("the account's stream got the page", () => all.received.length >= page.length)
          const jobPage = page.filter((event) => event.jobId === first.id)
          await waitFor("the Job's stream got its events", () => one.received.length >= jobPage.length)
          await sleep(300)
          assertOnceInOrder("/v1/events", all)
          assertOnceInOrder(`/v1/jobs/${first.id}/events`, one)
          assert.deepStrictEqual(all.received.map((r) => r.event), page)
          assert.deepStrictEqual(one.received.map((r) => r.event), jobPage)
          assert.isAbove(all.state.heartbeats, 0, "the stream process sends heartbeats")

          // A closed stream frees its place: the stream process tells the service.
          one.close()
          let again: Stream | undefined
          await waitFor("a place is free again", async () => {
            again = await openStream(service.base, "/v1/events?after=0", key).catch(() => undefined)
            return again !== undefined
          })
          streams.push(again!)

          // The stream process dies: its streams end, another starts, and a client that resumes from the
          // last id it received gets what follows, once and in order.
          process.kill(streamProcess!, "SIGKILL")
          await waitFor(
            "the streams ended with their process",
            () => all.state.ended !== undefined && again!.state.ended !== undefined
          )
          const last = all.received.at(-1)!.event.position
          let replacement: number | undefined
          await waitFor("another stream process", () => {
            replacement = childrenOf(pid).find((child) => child !== streamProcess)
            return replacement !== undefined
          })
          let resumed: Stream | undefined
          await waitFor("a stream is served again", async () => {
            resumed = await openStream(service.base, "/v1/events", key, { "last-event-id": String(last) })
              .catch(() => undefined)
            return resumed !== undefined
          })
          streams.push(resumed!)
          await client.constrain(created[0]!, "quiet table")
          const later = await settle(client, [first.id, ...created.map((job) => job.id)])
          const after = later.filter((event) => event.position > last)
          assert.isAbove(after.length, 0)
          await waitFor("the resumed stream got what followed", () => resumed!.received.length >= after.length)
          await sleep(300)
          assertOnceInOrder("resumed /v1/events", resumed!)
          assert.deepStrictEqual(resumed!.received.map((r) => r.event), after)

          // Stopping the service ends its streams (the body ends properly) and the stream process. The
          // resumed stream never ends by itself, so a service that waited on it would never exit, and be
          // killed after the grace: exit code 0 says it did not wait (how fast it stops: test:faults).
          const stopping = Date.now()
          await kill(service.child, "SIGTERM", 60_000)
          assert.strictEqual(service.child.signalCode, null, "stopped without waiting on its streams")
          if (WallClock.bounded) assert.isBelow(Date.now() - stopping, 8_000, "stopped within 8 s")
          assert.strictEqual(service.child.exitCode, 0)
          await waitFor("the stream ended", () => resumed!.state.ended !== undefined)
          assert.strictEqual(resumed!.state.ended, "ended by the server")
          await waitFor("the stream process stopped", () => !isAlive(replacement!))
        } finally {
          for (const stream of streams) stream.close()
          await Promise.all(services.map((service) => kill(service.child, "SIGTERM")))
          await store.drop()
        }
      }
    )
  }
)
