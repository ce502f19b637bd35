import { Config, Effect } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"

/** `REQUEST_LOG=false` turns the request log off. */
export const Enabled = Config.Boolean("REQUEST_LOG").pipe(Config.withDefault(true))

export interface RequestLog {
  /** Called as a request arrives; its line is written once its response has been sent. */
  readonly track: (request: IncomingMessage, response: ServerResponse) => void
}

/**
 * One JSON line per request: time, method, route, status and duration. Never a query string, a header
 * or a body, which is where addresses travel; the path of a request that matched no route is left out
 * too. It is kept at the Node level, where a response's end is an event, rather than as Effect
 * middleware, which also wraps every request in a tracing span: measured on the 422 path (`npm run
 * bench`), the middleware took about a third of the throughput, this a few percent.
 * Lines are gathered and written once per turn of the event loop, so no request waits for the write,
 * and what is gathered is written when the scope closes, after the server's last request.
 */
export const make = (write: (chunk: string) => void = (chunk) => process.stdout.write(chunk)) =>
  Effect.gen(function*() {
    let pending = ""
    const flush = () => {
      if (pending === "") return
      const chunk = pending
      pending = ""
      write(chunk)
    }
    yield* Effect.addFinalizer(() => Effect.sync(flush))
    const track = (request: IncomingMessage, response: ServerResponse) => {
      const started = performance.now()
      response.once("finish", () => {
        const status = response.statusCode
        const url = request.url ?? ""
        const end = url.indexOf("?")
        const route = status === 404 ? "null" : JSON.stringify(end === -1 ? url : url.slice(0, end))
        if (pending === "") setImmediate(flush)
        pending += `{"time":"${
          new Date().toISOString()
        }","method":"${request.method}","route":${route},"status":${status},"durationMs":${
          (performance.now() - started).toFixed(3)
        }}\n`
      })
    }
    return { track } satisfies RequestLog
  })
