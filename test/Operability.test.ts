import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Unavailable } from "../src/schema/Errors.ts"
import { layerMemory } from "../src/services/waitlist/MemoryWaitlist.ts"
import { Waitlist } from "../src/services/waitlist/Waitlist.ts"
import { baseUrl, join, send, serverWith } from "./support/Http.ts"
import { makeTestLayer } from "./support/makeTestLayer.ts"

const lines: Array<string> = []

layer(serverWith(layerMemory, (chunk) => lines.push(...chunk.split("\n").filter((line) => line !== ""))), {
  excludeTestServices: true
})("health checks and the request log", (it) => {
  it.effect("GET /healthz and GET /readyz answer 200 while the store serves", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const health = yield* send(url, { method: "GET", path: "/healthz" })
      assert.strictEqual(health.status, 200)
      assert.strictEqual(health.body, `{"status":"ok"}`)
      const ready = yield* send(url, { method: "GET", path: "/readyz" })
      assert.strictEqual(ready.status, 200)
      assert.strictEqual(ready.body, `{"status":"ready"}`)
    }))

  it.effect("writes one JSON line per request, with no address, query or unknown path in it", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      lines.length = 0
      const address = `private.${Date.now()}@example.com`
      assert.strictEqual((yield* join(url, address)).status, 200)
      assert.strictEqual((yield* join(url, "not-an-address")).status, 422)
      yield* send(url, { method: "GET", path: `/v1/waitlist?email=${encodeURIComponent(address)}` })
      yield* send(url, { method: "GET", path: `/${encodeURIComponent(address)}` })
      yield* Effect.sleep("50 millis")
      assert.strictEqual(lines.length, 4, lines.join("\n"))
      const entries = lines.map((line) => JSON.parse(line))
      assert.deepStrictEqual(
        entries.map(({ method, route, status }) => ({ method, route, status })),
        [
          { method: "POST", route: "/v1/waitlist", status: 200 },
          { method: "POST", route: "/v1/waitlist", status: 422 },
          { method: "GET", route: "/v1/waitlist", status: 405 },
          { method: "GET", route: null, status: 404 }
        ]
      )
      for (const entry of entries) {
        assert.deepStrictEqual(Object.keys(entry), ["time", "method", "route", "status", "durationMs"])
        assert.isAtLeast(entry.durationMs, 0)
        assert.strictEqual(new Date(entry.time).toISOString(), entry.time)
      }
      assert.notInclude(lines.join("\n"), "private.")
      assert.notInclude(lines.join("\n"), "not-an-address")
    }))
})

layer(serverWith(makeTestLayer(Waitlist)({ ready: Effect.fail(new Unavailable({ retryAfter: 5 })) })), {
  excludeTestServices: true
})("health checks while the store cannot serve", (it) => {
  it.effect("GET /readyz answers 503 while /healthz still answers 200", () =>
    Effect.gen(function*() {
      const url = yield* baseUrl
      const ready = yield* send(url, { method: "GET", path: "/readyz" })
      assert.strictEqual(ready.status, 503)
      assert.strictEqual(ready.body, `{"status":"unavailable"}`)
      assert.strictEqual((yield* send(url, { method: "GET", path: "/healthz" })).status, 200)
    }))
})
