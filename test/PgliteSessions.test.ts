import { PgClient } from "@effect/sql-pg"
import { assert, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { Socket } from "node:net"
import { performance } from "node:perf_hooks"
import { vi } from "vitest"
import { pgliteOnPort } from "./support/TestDatabase.ts"
import * as WallClock from "./support/WallClock.ts"

/**
 * The loopback port answers a statement as soon as PGlite has: a statement's answer is several
 * writes (ParseComplete, BindComplete, rows, ReadyForQuery), and with Nagle's algorithm each write
 * after the first waited for the client's delayed acknowledgement, about 40 ms on Linux, whatever the
 * statement: thirty statements took more than a second (the service's migrations on a fresh store
 * about two, within its first request's timeout); answered at once, a small fraction of that.
 *
 * What does not depend on the machine's speed is asserted always: the port's end of the connection
 * has Nagle's algorithm off. The time a statement takes is bounded under test:faults only.
 */
it.live("a statement on the loopback port is answered without waiting for the client's acknowledgement", () =>
  Effect.gen(function*() {
    const noDelay = yield* Effect.acquireRelease(
      Effect.sync(() => vi.spyOn(Socket.prototype, "setNoDelay")),
      (spy) => Effect.sync(() => spy.mockRestore())
    )
    const port = yield* pgliteOnPort("pglite-sessions-")
    const sql = yield* PgClient.make({
      url: Redacted.make(`postgres://postgres@127.0.0.1:${port}/postgres`),
      maxConnections: 1
    }).pipe(Effect.provide(Reactivity.layer))
    yield* sql`SELECT ${0}::int AS n`
    // The port's end of the connection is the socket whose local port is the port (the client's end,
    // which pg sets up the same way, has it as its remote port).
    const sockets = noDelay.mock.contexts as ReadonlyArray<Socket>
    const served = sockets.filter((socket) => socket.localPort === port)
    assert.strictEqual(served.length, 1, "the port's end of the connection")
    assert.deepStrictEqual(noDelay.mock.calls[sockets.indexOf(served[0]!)], [true])

    // Each statement timed on its own, and the median judged: Nagle's wait is the client's delayed
    // acknowledgement, at least 40 ms on Linux, on every statement; a loaded machine slows a few.
    const times: Array<number> = []
    for (let n = 1; n <= 30; n++) {
      const start = performance.now()
      const [row] = yield* sql<{ readonly n: number }>`SELECT ${n}::int AS n`
      times.push(performance.now() - start)
      assert.strictEqual(row?.n, n)
    }
    const median = times.sort((a, b) => a - b)[times.length / 2]!
    if (WallClock.bounded) assert.isBelow(median, 20, `median statement ${median.toFixed(1)} ms`)
  }))
