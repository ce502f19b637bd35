/**
 * Server-Sent Events streams, opened with node:http and parsed by hand (in the readers' process,
 * `Readers.ts`), and what the bench checks of each (`StreamRecord`, sent back to it compactly).
 */
import { Duration } from "effect"
import { request } from "node:http"
import type { Agent, ClientRequest } from "node:http"
import { connect } from "node:net"
import type { Socket } from "node:net"
import * as SseReader from "../../src/client/SseReader.ts"
import type { EventJson } from "./Api.ts"
import { clock } from "./Support.ts"

/** What a stream received, as the bench checks it. */
export interface StreamRecord {
  readonly index: number
  readonly positions: ReadonlyArray<number>
  readonly types: ReadonlyArray<string>
  /** When the chunk that completed each event arrived (`clock()`: wall-clock ms, as in every process). */
  readonly arrivals: ReadonlyArray<number>
  /** The parsed `data:` of each event, kept for a sample of the streams only. */
  readonly data: ReadonlyArray<unknown> | undefined
  readonly retry: number | undefined
  readonly heartbeats: number
  /** Events whose `id:` is not the `position` of their data (sampled streams only). */
  readonly badIds: number
  readonly status: number | undefined
  readonly error: string | undefined
}

export interface SseStream extends StreamRecord {
  readonly positions: Array<number>
  readonly types: Array<string>
  readonly arrivals: Array<number>
  readonly data: Array<unknown> | undefined
  retry: number | undefined
  heartbeats: number
  badIds: number
  status: number | undefined
  ended: boolean
  /** Closed by this bench: what follows is not the server's doing. */
  closed: boolean
  error: string | undefined
  request: ClientRequest | undefined
  /** A drained stream's connection (`openDrainedStream`). */
  socket?: Socket | undefined
  /** Bytes a drained stream (`openDrainedStream`) received after its `retry:`. */
  drainedBytes: number
}

/**
 * A stream's record as the readers' process sends it (structured clone): typed arrays and the event types
 * as indexes into one table, a few MB for 1,000 streams rather than a million strings.
 */
export interface CompactRecord extends Omit<StreamRecord, "positions" | "types" | "arrivals"> {
  readonly positions: Float64Array
  readonly types: Uint8Array
  readonly arrivals: Float64Array
}

export const compact = (stream: SseStream, typeTable: Array<string>): CompactRecord => {
  const { arrivals, badIds, data, error, heartbeats, index, positions, retry, status, types } = stream
  const typeIndex = (type: string) => {
    const at = typeTable.indexOf(type)
    return at >= 0 ? at : typeTable.push(type) - 1
  }
  return {
    index,
    positions: Float64Array.from(positions),
    types: Uint8Array.from(types, typeIndex),
    arrivals: Float64Array.from(arrivals),
    data,
    retry,
    heartbeats,
    badIds,
    status,
    error
  }
}

export const expand = (record: CompactRecord, typeTable: ReadonlyArray<string>): StreamRecord => ({
  ...record,
  positions: Array.from(record.positions),
  types: Array.from(record.types, (at) => typeTable[at]!),
  arrivals: Array.from(record.arrivals)
})

/** A stream before anything has arrived; `sampled` keeps the data of its events. */
const newStream = (index: number, sampled: boolean): SseStream => ({
  index,
  positions: [],
  types: [],
  arrivals: [],
  data: sampled ? [] : undefined,
  retry: undefined,
  heartbeats: 0,
  badIds: 0,
  status: undefined,
  ended: false,
  closed: false,
  error: undefined,
  request: undefined,
  drainedBytes: 0
})

/**
 * A new stream and the promise of its opening, which `connect` settles: `resolve` once `retry:` has
 * arrived, or `fail` with the first error (none is recorded once the stream was closed from this side).
 */
const opening = (
  index: number,
  sampled: boolean,
  connect: (stream: SseStream, resolve: (stream: SseStream) => void, fail: (message: string) => void) => void
) => {
  const stream = newStream(index, sampled)
  const opened = new Promise<SseStream>((resolve) => {
    connect(stream, resolve, (message) => {
      if (!stream.closed) stream.error ??= message
      resolve(stream)
    })
  })
  return { stream, opened }
}

/** Opens one stream; resolves once its `retry:` line has arrived (or the stream failed). */
export const openStream = (
  port: number,
  key: string,
  agent: Agent,
  index: number,
  path: string,
  sampled: boolean
) =>
  opening(index, sampled, (stream, resolve, fail) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path,
      agent,
      headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" }
    }, (res) => {
      stream.status = res.statusCode
      if (res.statusCode !== 200) {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => body += chunk)
        res.on("end", () => fail(`status ${res.statusCode}, retry-after ${res.headers["retry-after"]}: ${body}`))
        return
      }
      res.setEncoding("utf8")
      let arrived = 0
      const read = SseReader.makeReader({
        event: (message) => {
          const position = Number(message.id)
          stream.positions.push(position)
          stream.types.push(message.event)
          stream.arrivals.push(arrived)
          if (stream.data !== undefined) {
            const parsed = JSON.parse(message.data) as EventJson
            stream.data.push(parsed)
            if (parsed.position !== position) stream.badIds++
          }
        },
        retry: (after) => {
          stream.retry = Duration.toMillis(after)
          resolve(stream)
        },
        comment: () => stream.heartbeats++
      })
      res.on("data", (chunk: string) => {
        arrived = clock()
        read(chunk)
      })
      res.on("end", () => {
        stream.ended = true
        fail("ended by the server")
      })
      res.on("error", (error) => fail(error.message))
    })
    req.on("error", (error) => fail(error.message))
    stream.request = req
    req.end()
  })

/**
 * Opens one stream as the thinnest client: a socket that sends the request by hand and, once the head and
 * `retry:` have arrived, only counts the bytes it is sent, parsing nothing (no HTTP, no SSE). What the
 * writers' rounds open: 1,000 clients of a service run elsewhere than on its machine, so the CPU that 990
 * parsers took on the bench's two cores (and from PostgreSQL) is not counted against the service.
 * Resolves once `retry:` has arrived (or the stream failed); records only the status, `retry:` and errors.
 */
export const openDrainedStream = (port: number, key: string, index: number, path: string) =>
  opening(index, false, (stream, resolve, fail) => {
    const socket = connect(port, "127.0.0.1")
    stream.socket = socket
    let head = ""
    const onHead = (chunk: Buffer) => {
      head += chunk.toString("latin1")
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head)
      if (status !== null) stream.status ??= Number(status[1])
      if (stream.status !== undefined && stream.status !== 200) {
        if (/\r\n\r\n/.test(head)) {
          socket.destroy()
          fail(
            `status ${stream.status}, retry-after ${/retry-after: (\d+)/i.exec(head)?.[1]}: ${
              head.split("\r\n\r\n")[1]
            }`
          )
        }
        return
      }
      const retry = /retry: *(\d+)/.exec(head)
      if (retry === null) return
      stream.retry = Number(retry[1])
      socket.off("data", onHead)
      socket.on("data", (more: Buffer) => stream.drainedBytes += more.length)
      resolve(stream)
    }
    socket.on("data", onHead)
    socket.on("end", () => {
      stream.ended = true
      fail("ended by the server")
    })
    socket.on("error", (error) => fail(error.message))
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n`
        + "Accept: text/event-stream\r\n\r\n"
    )
  })

/** Closes a stream from this side: what follows is not the server's doing. */
export const close = (stream: SseStream) => {
  stream.closed = true
  stream.request?.destroy()
  stream.socket?.destroy()
}
