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
