/**
 * What the request log costs: two services, one with `REQUEST_LOG=false`, driven in turn (on, off, on,
 * off, ...) with the same load on a path that does no store work (a document with an invalid address,
 * answered 422 after the full HTTP path and decoding), so that the log's share is not hidden behind the
 * database. Prints requests per second for each and the ratio. Its output goes to /dev/null here, as a
 * log shipper would take it.
 *
 *   npm run bench
 */
import { spawn } from "node:child_process"
import { mkdtempSync, openSync, rmSync } from "node:fs"
import { Agent, request } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { post } from "./Post.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 3)
const rounds = Number(process.env.BENCH_ROUNDS_LOG ?? 3)
const connections = 32

const start = async (requestLog: boolean) => {
  const dataDir = mkdtempSync(join(tmpdir(), "waitlist-bench-log-"))
  const port = 20000 + Math.floor(Math.random() * 20000)
  const out = openSync("/dev/null", "w")
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    REQUEST_LOG: String(requestLog)
  }
  delete env.DATABASE_URL
  const server = spawn(process.execPath, ["src/main.ts"], { env, stdio: ["ignore", out, "inherit"] })
  for (let waited = 0;; waited += 100) {
    const up = await new Promise<boolean>((resolve) =>
      request({ host: "127.0.0.1", port, path: "/healthz" }, (res) => {
        res.resume()
        resolve(res.statusCode === 200)
      })
        .on("error", () => resolve(false)).end()
    )
    if (up) break
    if (waited > 30_000) throw new Error("the service did not start")
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { port, stop: () => (server.kill("SIGTERM"), rmSync(dataDir, { recursive: true, force: true })) }
}

const body = JSON.stringify({ email: "not-an-address", source: "landing" })

const load = async (port: number) => {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const until = performance.now() + seconds * 1000
  let done = 0
  const client = async () => {
    while (performance.now() < until) {
      await post(port, agent, body, 422)
      done++
    }
  }
  await Promise.all(Array.from({ length: connections }, client))
  agent.destroy()
  return done / seconds
}

const withLog = await start(true)
const withoutLog = await start(false)
await load(withLog.port)
await load(withoutLog.port)
const results = { on: [] as Array<number>, off: [] as Array<number> }
for (let round = 0; round < rounds; round++) {
  results.on.push(await load(withLog.port))
  results.off.push(await load(withoutLog.port))
}
withLog.stop()
withoutLog.stop()

const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
console.log(`request log cost, ${rounds} interleaved rounds of ${seconds} s at ${connections} connections (422 path)`)
console.log(`  log on   ${median(results.on).toFixed(0)} req/s  (${results.on.map((r) => r.toFixed(0)).join(", ")})`)
console.log(`  log off  ${median(results.off).toFixed(0)} req/s  (${results.off.map((r) => r.toFixed(0)).join(", ")})`)
console.log(`log on/off req/s ratio: ${(median(results.on) / median(results.off)).toFixed(3)}`)
