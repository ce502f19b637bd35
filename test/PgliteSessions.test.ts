import { PgClient } from "@effect/sql-pg"
import { assert, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { performance } from "node:perf_hooks"
import { pgliteOnPort } from "./support/TestDatabase.ts"

/**
 * The loopback port answers a statement as soon as PGlite has: a statement's answer is several
 * writes (ParseComplete, BindComplete, rows, ReadyForQuery), and with Nagle's algorithm each write
 * after the first waited for the client's delayed acknowledgement, about 40 ms on Linux, whatever the
 * statement: thirty statements took more than a second (the service's migrations on a fresh store
 * about two, within its first request's timeout); answered at once, a small fraction of that.
 */
it.live("a statement on the loopback port is answered without waiting for the client's acknowledgement", () =>
  Effect.gen(function*() {
    const port = yield* pgliteOnPort("pglite-sessions-")
    const sql = yield* PgClient.make({
      url: Redacted.make(`postgres://postgres@127.0.0.1:${port}/postgres`),
      maxConnections: 1
    }).pipe(Effect.provide(Reactivity.layer))
    yield* sql`SELECT ${0}::int AS n`
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
    assert.isBelow(median, 20, `median statement ${median.toFixed(1)} ms`)
  }))
