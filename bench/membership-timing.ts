/**
 * Does a 200 reveal membership by its timing? Starts the service (embedded PGlite in a temporary data
 * directory, or a new database on the PostgreSQL server of BENCH_DATABASE_URL, dropped afterwards), then times new and known addresses, interleaved
 * in random order on one keep-alive connection, and prints the medians and their ratio.
 *
 *   npm run bench                       # PGlite
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { Agent } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { scratchDatabase } from "./Database.ts"
import * as Post from "./Post.ts"

const rounds = Number(process.env.BENCH_ROUNDS ?? 2000)
const dataDir = mkdtempSync(join(tmpdir(), "waitlist-bench-"))
const port = 20000 + Math.floor(Math.random() * 20000)
const env: Record<string, string | undefined> = { ...process.env, PORT: String(port), DATA_DIR: dataDir }
// The PostgreSQL server only when one is named; the embedded store otherwise.
const database = process.env.BENCH_DATABASE_URL === undefined ? undefined : scratchDatabase("membership")
if (database !== undefined) {
  await database.create()
  env.DATABASE_URL = database.url
} else {
  delete env.DATABASE_URL
}

const server = spawn(process.execPath, ["src/main.ts"], { env, stdio: ["ignore", "pipe", "inherit"] })
await new Promise<void>((resolve, reject) => {
  server.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("Listening on") && resolve())
  server.on("exit", (code) => reject(new Error(`server exited with ${code}`)))
})

const agent = new Agent({ keepAlive: true, maxSockets: 1 })
const post = (email: string) => Post.post(port, agent, JSON.stringify({ email, source: "landing" }), 200)

const run = Date.now().toString(36)
const known: Array<string> = []
for (let i = 0; i < 300; i++) {
  const email = `known.${run}.${i}@example.com`
  await post(email)
  known.push(email)
}
const times = { new: [] as Array<number>, known: [] as Array<number> }
for (let i = 0; i < rounds; i++) {
  const pair: Array<"new" | "known"> = Math.random() < 0.5 ? ["new", "known"] : ["known", "new"]
  for (const kind of pair) {
    const email = kind === "new" ? `new.${run}.${i}@example.com` : known[i % known.length]!.toUpperCase()
    times[kind].push(await post(email))
  }
}
server.kill("SIGTERM")
await new Promise((resolve) => server.once("exit", resolve))
rmSync(dataDir, { recursive: true, force: true })
await database?.drop()

const quantile = (values: Array<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}
const store = process.env.BENCH_DATABASE_URL === undefined ? "PGlite" : "PostgreSQL"
console.log(`membership timing on ${store}, ${rounds} new and ${rounds} known addresses, interleaved`)
for (const kind of ["new", "known"] as const) {
  console.log(
    `  ${kind.padEnd(5)} p50 ${quantile(times[kind], 0.5).toFixed(0)} µs  p90 ${
      quantile(times[kind], 0.9).toFixed(0)
    } µs`
  )
}
console.log(`known/new median ratio: ${(quantile(times.known, 0.5) / quantile(times.new, 0.5)).toFixed(3)}`)
