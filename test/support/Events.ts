import { Effect } from "effect"
import { request } from "node:http"

export interface SseRead {
  readonly status: number
  readonly headers: Record<string, string | Array<string> | undefined>
  readonly text: string
}

/**
 * Opens `path` as an event stream (`Accept: text/event-stream`) and reads its text until `until` holds
 * of what arrived (or the answer ends, or `timeoutMs` passes); then closes the connection.
 */
export const readEventStream = (
  url: string,
  path: string,
  options: {
    readonly key: string
    readonly headers?: Record<string, string>
    readonly until: (text: string) => boolean
    readonly timeoutMs?: number
  }
): Effect.Effect<SseRead> =>
  Effect.callback<SseRead>((resume) => {
    let text = ""
    const req = request(new URL(url + path), {
      headers: { accept: "text/event-stream", authorization: `Bearer ${options.key}`, ...options.headers },
      agent: false
    }, (res) => {
      const done = () => {
        clearTimeout(timer)
        req.destroy()
        resume(Effect.succeed({ status: res.statusCode ?? 0, headers: res.headers, text }))
      }
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => {
        text += chunk
        if (options.until(text)) done()
      })
      res.on("end", done)
      res.on("error", done)
    })
    const timer = setTimeout(() => req.destroy(new Error("timed out")), options.timeoutMs ?? 5000)
    req.on("error", (error) => resume(Effect.succeed({ status: 0, headers: {}, text: `${text}\n# ${error.message}` })))
    req.end()
    return Effect.sync(() => {
      clearTimeout(timer)
      req.destroy()
    })
  })

export interface SseMessage {
  readonly id: string | undefined
  readonly event: string | undefined
  /** The `data:` lines joined by newlines; `undefined` when there were none. */
  readonly data: string | undefined
  /** Whether the message held a comment (a line starting with `:`, the heartbeat). */
  readonly comment: boolean
}

/** One message of an SSE text (the lines up to a blank line), read as the SSE specification reads it. */
export const parseMessage = (block: string): SseMessage => {
  let id: string | undefined
  let event: string | undefined
  let data: string | undefined
  let comment = false
  for (const line of block.split("\n")) {
    if (line === "") continue
    if (line.startsWith(":")) {
      comment = true
      continue
    }
    const colon = line.indexOf(":")
    const name = colon < 0 ? line : line.slice(0, colon)
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "")
    if (name === "id") id = value
    else if (name === "event") event = value
    else if (name === "data") data = data === undefined ? value : `${data}\n${value}`
  }
  return { id, event, data, comment }
}

export interface SseEvent {
  readonly id: string | undefined
  readonly event: string | undefined
  readonly data: string
}

/** The events of an SSE text (comments and `retry:` left out). */
export const parseEvents = (text: string): ReadonlyArray<SseEvent> =>
  text.replace(/\r\n?/g, "\n").split("\n\n").map(parseMessage).flatMap(({ data, event, id }) =>
    data === undefined ? [] : [{ id, event, data }]
  )
