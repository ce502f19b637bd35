/**
 * The service under load at 64 connections while its PostgreSQL server (a private one) is hung for
 * 5 s, then crashed and started again. The only answers allowed are 200 and 503, every 503 within
 * 3 s, no connection is dropped, and every address answered 200 is in the table afterwards.
 *
 *   npm run test:faults
 */
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { Agent, request } from "node:http"
import { performance } from "node:perf_hooks"
import { setTimeout as sleep } from "node:timers/promises"
import pg from "pg"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import * as PrivatePostgres from "../support/PrivatePostgres.ts"
import { relay } from "../support/ServiceProcess.ts"

const connections = 64
const answerWithin = 3_000

interface Outcome {
  readonly phase: string
  readonly email: string
  readonly status: number | "dropped"
  readonly ms: number
}

let database: PrivatePostgres.PrivatePostgres
let server: ChildProcess
let port: number

beforeAll(async () => {
  database = PrivatePostgres.make()
  port = 20000 + Math.floor(Math.random() * 10000)
  server = spawn(process.execPath, ["src/main.ts"], {
    env: { ...process.env, DATABASE_URL: database.url, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  relay(server.stderr)
  await new Promise<void>((resolve, reject) => {
    server.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("Listening on") && resolve())
    server.on("exit", (code) => reject(new Error(`service exited with ${code}`)))
  })
  server.stdout!.resume()
})

afterAll(() => {
  server?.kill("SIGTERM")
  database?.destroy()
})

const agent = new Agent({ keepAlive: true, maxSockets: connections })

const post = (email: string) =>
  new Promise<number | "dropped">((resolve) => {
    const body = JSON.stringify({ email, source: "landing" })
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/v1/waitlist",
      method: "POST",
      agent,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
    }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode!))
      res.on("error", () => resolve("dropped"))
    })
    req.on("error", () => resolve("dropped"))
    req.end(body)
  })

describe("the waitlist while its database fails, under load", () => {
  it("answers only 200 or 503, every 503 within 3 s, and loses no address answered 200", async () => {
    const outcomes: Array<Outcome> = []
    let phase = "before"
    let running = true
    let counter = 0
    const client = async (id: number) => {
      while (running) {
        const email = `load.${id}.${++counter}@faults.example.com`
        const started = performance.now()
        const status = await post(email)
        outcomes.push({ phase, email, status, ms: performance.now() - started })
      }
    }
    const clients = Array.from({ length: connections }, (_, id) => client(id))

    await sleep(3_000)
    phase = "hung"
    database.pause()
    await sleep(5_000)
    database.resume()
    phase = "after hang"
    await sleep(5_000)
    phase = "stopped"
    database.crash()
    await sleep(3_000)
    database.start()
    phase = "after restart"
    await sleep(8_000)
    running = false
    await Promise.all(clients)

    const table = new Map<string, Map<string, number>>()
    for (const { phase, status } of outcomes) {
      const row = table.get(phase) ?? new Map<string, number>()
      row.set(String(status), (row.get(String(status)) ?? 0) + 1)
      table.set(phase, row)
    }
    const slowest503 = Math.max(0, ...outcomes.filter((o) => o.status === 503).map((o) => o.ms))
    const joined = outcomes.filter((o) => o.status === 200)
    const client2 = new pg.Client({ connectionString: database.url })
    await client2.connect()
    const stored = new Set(
      (await client2.query<{ email: string }>("SELECT convert_from(email, 'UTF8') AS email FROM waitlist_members"))
        .rows.map((row) => row.email)
    )
    await client2.end()
    const lost = joined.filter((o) => !stored.has(o.email))

    const lines = [...table].map(([phase, row]) =>
      `  ${phase.padEnd(14)} ${[...row].map(([status, n]) => `${status}: ${n}`).join(", ")}`
    )
    process.stdout.write(
      `\nDatabase faults under load (${connections} connections):\n${lines.join("\n")}\n`
        + `  slowest 503: ${slowest503.toFixed(0)} ms; answered 200: ${joined.length}; `
        + `stored: ${stored.size}; lost: ${lost.length}\n`
    )

    const statuses = new Set(outcomes.map((o) => o.status))
    assert.deepStrictEqual([...statuses].filter((s) => s !== 200 && s !== 503), [], "only 200 and 503")
    assert.isAtMost(slowest503, answerWithin, "every 503 within 3 s")
    assert.deepStrictEqual(lost.map((o) => o.email), [], "no address answered 200 is missing")
    assert.isAbove(table.get("hung")?.get("503") ?? 0, 0, "the hang was felt")
    assert.isAbove(table.get("stopped")?.get("503") ?? 0, 0, "the crash was felt")
    assert.isAbove(table.get("after restart")?.get("200") ?? 0, 0, "it recovered without a restart")
  }, 120_000)
})
