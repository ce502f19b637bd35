/** Server-Sent Events streams, opened with node:http and parsed by hand. */
import { Duration } from "effect"
import { request } from "node:http"
import type { Agent, ClientRequest } from "node:http"
import * as SseReader from "../../src/client/SseReader.ts"
import type { EventJson } from "./Api.ts"
import { clock } from "./Support.ts"

export interface SseStream {
  readonly index: number
  readonly positions: Array<number>
  readonly types: Array<string>
  /** When the chunk that completed each event arrived (`clock()`). */
  readonly arrivals: Array<number>
  /** The parsed `data:` of each event, kept for a sample of the streams only. */
  readonly data: Array<unknown> | undefined
  retry: number | undefined
  heartbeats: number
  /** Events whose `id:` is not the `position` of their data (sampled streams only). */
  badIds: number
  status: number | undefined
  ended: boolean
  /** Closed by this bench: what follows is not the server's doing. */
  closed: boolean
  error: string | undefined
  request: ClientRequest | undefined
}

/** Opens one stream; resolves once its `retry:` line has arrived (or the stream failed). */
export const openStream = (
  port: number,
  key: string,
  agent: Agent,
  index: number,
  path: string,
  sampled: boolean
) => {
  const stream: SseStream = {
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
    request: undefined
  }
  const opened = new Promise<SseStream>((resolve) => {
    const fail = (message: string) => {
      if (!stream.closed) stream.error ??= message
      resolve(stream)
    }
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
  return { stream, opened }
}

/** Closes a stream from this side: what follows is not the server's doing. */
export const close = (stream: SseStream) => {
  stream.closed = true
  stream.request?.destroy()
}
