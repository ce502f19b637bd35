import { Config, Context, Effect } from "effect"
import { causeResponseStripped } from "effect/http/HttpServerError"
import { HttpServerRequest } from "effect/http/HttpServerRequest"
import type { HttpServerResponse } from "effect/http/HttpServerResponse"

/** `REQUEST_LOG=false` turns the request log off. */
export const Enabled = Config.Boolean("REQUEST_LOG").pipe(Config.withDefault(true))

const stripQuery = (url: string) => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

/**
 * One JSON line per request on standard output: time, method, route, status and duration. Never a
 * query string, a header or a body, which is where addresses travel; the path of a request that
 * matched no route is left out too. Lines are gathered and written once per turn of the event loop,
 * so no request waits for the write; what is gathered is written when the scope closes, after the
 * server has finished its last request.
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
    const log = (line: string) => {
      if (pending === "") setImmediate(flush)
      pending += line
    }
    yield* Effect.addFinalizer(() => Effect.sync(flush))
    return <E, R>(app: Effect.Effect<HttpServerResponse, E, R>): Effect.Effect<HttpServerResponse, E, R> =>
      Effect.withFiber((fiber) => {
        const request = Context.getUnsafe(fiber.context, HttpServerRequest)
        const started = performance.now()
        return Effect.onExit(app, (exit) =>
          Effect.sync(() => {
            const status = exit._tag === "Success" ? exit.value.status : causeResponseStripped(exit.cause)[0].status
            log(
              `{"time":"${new Date().toISOString()}","method":${JSON.stringify(request.method)},"route":${
                status === 404 ? null : JSON.stringify(stripQuery(request.url))
              },"status":${status},"durationMs":${(performance.now() - started).toFixed(3)}}\n`
            )
          }))
      })
  })

export type RequestLog = Effect.Success<ReturnType<typeof make>>
