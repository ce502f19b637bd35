import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import type { IncomingMessage, ServerResponse } from "node:http"

/** `REQUEST_LOG=false` turns the request log off. */
export const Enabled = Config.Boolean("REQUEST_LOG").pipe(Config.withDefault(true))

const started = Symbol("started")

const approvePrefix = "/approve/"

/**
 * An approval link's path carries its token, a credential: it is logged as its template
 * (`/approve/{token}`, `/approve/{token}/decision`, ...), and never kept.
 */
const approveTemplate = (url: string) => {
  const end = url.indexOf("?")
  const rest = url.slice(approvePrefix.length, end === -1 ? undefined : end).split("/").slice(1)
  return JSON.stringify(["/approve/{token}", ...rest.map((part) => /^[a-z]+$/.test(part) ? part : "…")].join("/"))
}

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
    // One listener shared by every response, the start time kept on the response itself, the time
    // formatted once per millisecond and the route once per path: no allocation per request but the
    // line itself.
    let lastMillis = 0
    let lastTime = ""
    const routes = new Map<string, string>()
    const routeOf = (url: string) => {
      if (url.startsWith(approvePrefix)) return approveTemplate(url)
      let route = routes.get(url)
      if (route === undefined) {
        const end = url.indexOf("?")
        route = JSON.stringify(end === -1 ? url : url.slice(0, end))
        if (routes.size < 64) routes.set(url, route)
      }
      return route
    }
    function onFinish(this: ServerResponse & { [started]?: number }) {
      const status = this.statusCode
      const now = Date.now()
      if (now !== lastMillis) {
        lastMillis = now
        lastTime = new Date(now).toISOString()
      }
      if (pending === "") setImmediate(flush)
      pending += `{"time":"${lastTime}","method":"${this.req.method}","route":${
        status === 404 ? "null" : routeOf(this.req.url ?? "")
      },"status":${status},"durationMs":${(performance.now() - this[started]!).toFixed(3)}}\n`
    }
    const track = (_request: IncomingMessage, response: ServerResponse & { [started]?: number }) => {
      response[started] = performance.now()
      response.on("finish", onFinish)
    }
    return { track } satisfies RequestLog
  })
