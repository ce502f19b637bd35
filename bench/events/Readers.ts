/**
 * The bench's SSE readers, in a process of their own (started by `ReaderClient.ts`, pinned to CPU 1 with
 * the writers' driver): 1,000 streams each parse every event, about 10 ms of CPU per change, and on the
 * driver's event loop that work was counted in the writers' times. Driven over IPC: open streams, wait
 * until they have an event, close them, send back what each received.
 */
import { Agent } from "node:http"
import type { CompactRecord, SseStream } from "./Streams.ts"
import { close, compact, openDrainedStream, openStream } from "./Streams.ts"
import { clock, pooled, sleep } from "./Support.ts"

export type Request =
  | { readonly _tag: "Warm"; readonly port: number; readonly key: string }
  | {
    readonly _tag: "Open"
    readonly port: number
    readonly key: string
    readonly from: number
    readonly to: number
    /** The streams' cursor: every event after this position (0: the whole history). */
    readonly after: number
    readonly history: number
    /** Thin clients that only count bytes (`openDrainedStream`): nothing is recorded of their events. */
    readonly drain: boolean
  }
  | { readonly _tag: "CaughtUp"; readonly from: number; readonly to: number; readonly last: number }
  | { readonly _tag: "Close"; readonly from: number; readonly to: number }
  | { readonly _tag: "Collect"; readonly from: number; readonly to: number }

export type Reply =
  | { readonly _tag: "Done" }
  /** Streams closed; what the thin clients among them had received, bytes in all. */
  | { readonly _tag: "Closed"; readonly drainedBytes: number }
  | {
    readonly _tag: "Opened"
    readonly seconds: number
    readonly refusals: ReadonlyArray<string>
    /** Why streams did not open or did not receive the history, if some did not. */
    readonly failure: string | undefined
  }
  | { readonly _tag: "CaughtUp"; readonly caughtUp: boolean }
  | { readonly _tag: "Collected"; readonly records: ReadonlyArray<CompactRecord>; readonly types: Array<string> }

const agent = new Agent({ keepAlive: true })
const streams: Array<SseStream> = []
const path = (after: number) => `/v1/events?after=${after}`

/**
 * Opens the streams `from` to `to` (exclusive), every one after position `after`, at most 100 at once; waits
 * until each has received the `history` events. A 503 (the store did not answer in time) is counted, and the
 * stream opened again after its Retry-After, up to 5 times; any other refusal is a failure.
 */
const open = async (
  { after, drain, from, history, key, port, to }: Extract<Request, { _tag: "Open" }>
): Promise<Reply> => {
  const refusals: Array<string> = []
  const started = clock()
  await pooled(Array.from({ length: to - from }, (_, i) => from + i), 100, async (i) => {
    for (let attempt = 1;; attempt++) {
      const { opened, stream } = drain
        ? openDrainedStream(port, key, i, path(after))
        : openStream(port, key, agent, i, path(after), i % 100 === 0)
      streams[i] = stream
      await opened
      if (stream.status !== 503 || attempt === 5) return
      refusals.push(stream.error ?? "503")
      await sleep(1000 * Number(/retry-after (\d+)/.exec(stream.error ?? "")?.[1] ?? 1))
    }
  })
  const seconds = (clock() - started) / 1000
  const opened = streams.slice(from, to)
  const failed = opened.filter((stream) => stream.retry === undefined || stream.error !== undefined)
  if (failed.length > 0) {
    const why = [...new Set(failed.map((stream) => stream.error ?? `status ${stream.status}`))].join("; ")
    return { _tag: "Opened", seconds, refusals, failure: `${failed.length} streams did not open: ${why}` }
  }
  for (let deadline = Date.now() + 60_000; opened.some((stream) => stream.positions.length < history);) {
    if (Date.now() > deadline) {
      return { _tag: "Opened", seconds, refusals, failure: "streams did not receive the history within 60 s" }
    }
    await sleep(50)
  }
  return { _tag: "Opened", seconds, refusals, failure: undefined }
}

/** Waits (at most a minute) until every stream from `from` to `to` has received the event at `last`. */
const caughtUp = async (from: number, to: number, last: number) => {
  const some = streams.slice(from, to)
  for (let deadline = Date.now() + 60_000; Date.now() < deadline;) {
    if (some.every((stream) => (stream.positions.at(-1) ?? 0) >= last)) return true
    await sleep(50)
  }
  return false
}

const answer = async (request: Request): Promise<Reply> => {
  switch (request._tag) {
    case "Warm": {
      // The stream's code path warmed up in the service: one stream opened and closed.
      const warm = openStream(request.port, request.key, agent, -1, path(0), false)
      await warm.opened
      await sleep(300)
      close(warm.stream)
      return { _tag: "Done" }
    }
    case "Open":
      return open(request)
    case "CaughtUp":
      return { _tag: "CaughtUp", caughtUp: await caughtUp(request.from, request.to, request.last) }
    case "Close": {
      // A hole where opening failed.
      const closing = streams.slice(request.from, request.to).filter((stream) => stream !== undefined)
      for (const stream of closing) close(stream)
      return { _tag: "Closed", drainedBytes: closing.reduce((sum, stream) => sum + stream.drainedBytes, 0) }
    }
    case "Collect": {
      const types: Array<string> = []
      return {
        _tag: "Collected",
        records: streams.slice(request.from, request.to).map((s) => compact(s, types)),
        types
      }
    }
  }
}

process.on("message", (message: { readonly id: number; readonly request: Request }) => {
  void answer(message.request).then(
    (reply) => process.send!({ id: message.id, reply }),
    (error: unknown) => process.send!({ id: message.id, error: error instanceof Error ? error.stack : String(error) })
  )
})
// The bench is gone (or done): nothing to keep open.
process.once("disconnect", () => process.exit(0))
