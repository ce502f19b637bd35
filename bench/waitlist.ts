/**
 * The waitlist side by side with the hand-written baseline (`bench/baseline.ts`), in one run, against
 * the same PostgreSQL (BENCH_DATABASE_URL, default the local server), plus the service on its embedded
 * store. Each server gets a new database (dropped afterwards) and the same load from wrk: new
 * addresses, and a mix where 90% repeat known ones, at 16 and 64 connections, warm-up first, then
 * interleaved rounds. wrk runs pinned to CPU 1 when `taskset` can pin it; the servers and PostgreSQL
 * are left to the scheduler, as they would run on a two-core machine of their own (pinning the server
 * to one CPU put V8's collector threads on the server's own CPU and doubled its p99).
 *
 *   npm run bench                        # BENCH_ROUNDS=3 BENCH_SECONDS=5
 *   BENCH_COMPARE=/tmp/before node bench/waitlist.ts
 *
 * `BENCH_COMPARE` names another checkout (a `git worktree` of an earlier commit, with its
 * node_modules): its service runs in the same rounds on a database of its own, so that a change is
 * measured against what came before it in one run.
 */
const compare = process.env.BENCH_COMPARE
import { execFileSync, spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { admin, databaseUrl } from "./Database.ts"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = [16, 64]
const mixes = [{ name: "unique", repeat: 0 }, { name: "90% repeat", repeat: 0.9 }] as const
const output = process.env.BENCH_OUTPUT ?? join(root, "bench", "results", "waitlist.json")

const canPin = (() => {
  try {
    execFileSync("taskset", ["-c", "0", "true"])
    return true
  } catch {
    return false
  }
})()
const pinned = (cpu: number, command: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  canPin ? ["taskset", ["-c", String(cpu), command, ...args]] : [command, [...args]]

interface Server {
  readonly name: string
  readonly port: number
  readonly process: ChildProcess
  readonly cleanup: () => Promise<void>
}

const start = async (
  name: string,
  script: string,
  env: Record<string, string>,
  cleanup: () => Promise<void>,
  cwd: string = root
) => {
  const port = 20000 + Math.floor(Math.random() * 20000)
  const [command, args] = [process.execPath, [script]]
  // The request log goes where a log shipper would take it, and costs the bench nothing to read.
  const child = spawn(command, args, {
    cwd,
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", openSync("/dev/null", "w"), "inherit"]
  })
  let exited: number | null | undefined
  child.on("exit", (code) => exited = code)
  while ((await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false)) === false) {
    if (exited !== undefined) throw new Error(`${name} exited with ${exited}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { name, port, process: child, cleanup } satisfies Server
}

const stop = async (server: Server) => {
  const exited = new Promise((resolve) => server.process.once("exit", resolve))
  server.process.kill("SIGTERM")
  await exited
  await server.cleanup()
}

/** Peak resident memory of a server process so far, in MB (`VmHWM`). */
const peakRss = (server: Server) => {
  const status = readFileSync(`/proc/${server.process.pid}/status`, "utf8")
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024
}

interface Run {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly non2xx: number
  readonly socketErrors: number
  readonly requests: number
}

const toMs = (value: string, unit: string) => Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? NaN)

const wrk = (server: Server, options: { connections: number; seconds: number; repeat: number; prefix: string }) => {
  const [command, args] = pinned(1, "wrk", [
    "-t1",
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    "--timeout",
    "10s",
    "--latency",
    "-s",
    join(root, "bench", "waitlist.lua"),
    `http://127.0.0.1:${server.port}`
  ])
  const text = execFileSync(command, args, {
    encoding: "utf8",
    env: { ...process.env, BENCH_PREFIX: options.prefix, BENCH_REPEAT: String(options.repeat) }
  })
  const latency = (percent: string) => {
    const match = new RegExp(`${percent}%\\s+([\\d.]+)(us|ms|s)`).exec(text)!
    return toMs(match[1]!, match[2]!)
  }
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)![1]),
    p50: latency("50"),
    p99: latency("99"),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0),
    socketErrors: socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0),
    requests: Number(/(\d+) requests in/.exec(text)![1])
  } satisfies Run
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const run = Date.now().toString(36)
const databases = {
  service: `bench_service_${run}`,
  baseline: `bench_baseline_${run}`,
  compare: `bench_compare_${run}`
}
const dataDir = mkdtempSync(join(tmpdir(), "waitlist-bench-"))

await admin(`CREATE DATABASE ${databases.service}`)
await admin(`CREATE DATABASE ${databases.baseline}`)
execFileSync(process.execPath, ["src/cli.ts", "db", "migrate"], {
  cwd: root,
  env: { ...process.env, DATABASE_URL: databaseUrl(databases.baseline) },
  stdio: "ignore"
})

const servers: Array<Server> = []
try {
  servers.push(
    await start(
      "waitlist",
      "src/main.ts",
      { DATABASE_URL: databaseUrl(databases.service) },
      () => admin(`DROP DATABASE ${databases.service}`)
    ),
    await start(
      "baseline",
      "bench/baseline.ts",
      { DATABASE_URL: databaseUrl(databases.baseline) },
      () => admin(`DROP DATABASE ${databases.baseline}`)
    ),
    await start("waitlist embedded", "src/main.ts", { DATA_DIR: dataDir, DATABASE_URL: "" }, async () => {
      rmSync(dataDir, { recursive: true, force: true })
    })
  )
  if (compare !== undefined) {
    await admin(`CREATE DATABASE ${databases.compare}`)
    servers.push(
      await start(
        "waitlist (compare)",
        "src/main.ts",
        { DATABASE_URL: databaseUrl(databases.compare) },
        () => admin(`DROP DATABASE ${databases.compare}`),
        compare
      )
    )
  }

  process.stdout.write(
    `${servers.length} servers, ${rounds} interleaved rounds of ${seconds} s per cell, `
      + `${canPin ? "wrk pinned to CPU 1" : "wrk unpinned (no taskset)"}\n`
  )
  // Warm-up: the JIT, the pools, and the known addresses of the repeat mix.
  for (const server of servers) {
    wrk(server, { connections: 64, seconds: 2, repeat: 0, prefix: `warm.${run}` })
    wrk(server, { connections: 64, seconds: 3, repeat: 1, prefix: `warm.${run}` })
  }

  const results: Record<string, Array<Run>> = {}
  for (let round = 0; round < rounds; round++) {
    for (const mix of mixes) {
      for (const c of connections) {
        for (const server of servers) {
          const result = wrk(server, { connections: c, seconds, repeat: mix.repeat, prefix: `r${round}.${run}` })
          const cell = `${server.name}|${mix.name}|${c}`
          ;(results[cell] ??= []).push(result)
        }
      }
    }
  }

  const cells = servers.flatMap((server) =>
    mixes.flatMap((mix) =>
      connections.map((c) => {
        const runs = results[`${server.name}|${mix.name}|${c}`]!
        return {
          server: server.name,
          mix: mix.name,
          connections: c,
          rps: median(runs.map((r) => r.rps)),
          p50: median(runs.map((r) => r.p50)),
          p99: median(runs.map((r) => r.p99)),
          non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
          socketErrors: runs.reduce((sum, r) => sum + r.socketErrors, 0),
          requests: runs.reduce((sum, r) => sum + r.requests, 0),
          rounds: runs
        }
      })
    )
  )
  const rss = Object.fromEntries(servers.map((server) => [server.name, peakRss(server)]))
  const find = (server: string, mix: string, c: number) =>
    cells.find((cell) => cell.server === server && cell.mix === mix && cell.connections === c)!

  const pad = (value: string | number, width: number) => String(value).padStart(width)
  const lines = [
    `${"server".padEnd(18)}${"mix".padEnd(12)}${pad("c", 4)}${pad("req/s", 9)}${pad("p50 ms", 9)}${pad("p99 ms", 9)}`
    + `${pad("non-2xx", 9)}${pad("sock err", 9)}${pad("RSS MB", 8)}${pad("vs base", 9)}`
  ]
  for (const cell of cells) {
    const base = find("baseline", cell.mix, cell.connections)
    lines.push(
      `${cell.server.padEnd(18)}${cell.mix.padEnd(12)}${pad(cell.connections, 4)}${pad(cell.rps.toFixed(0), 9)}`
        + `${pad(cell.p50.toFixed(2), 9)}${pad(cell.p99.toFixed(2), 9)}${pad(cell.non2xx, 9)}`
        + `${pad(cell.socketErrors, 9)}${pad(rss[cell.server]!.toFixed(0), 8)}`
        + `${pad(cell.server === "baseline" ? "" : (cell.rps / base.rps).toFixed(2), 9)}`
    )
  }
  const embedded = connections.map((c) =>
    `${(find("waitlist embedded", "unique", c).rps / find("waitlist", "unique", c).rps).toFixed(2)} at c=${c}`
  )
  lines.push("", `embedded/PostgreSQL req/s, unique: ${embedded.join(", ")}`)
  const ratio = find("waitlist", "unique", 64).rps / find("baseline", "unique", 64).rps
  lines.push(`waitlist/baseline req/s at c=64 unique: ${ratio.toFixed(2)}`)

  mkdirSync(dirname(output), { recursive: true })
  writeFileSync(
    output,
    JSON.stringify({ date: new Date().toISOString(), rounds, seconds, pinned: canPin, rss, cells, ratio }, null, 2)
      + "\n"
  )
  process.stdout.write(`${lines.join("\n")}\n`)
} finally {
  for (const server of servers) await stop(server)
}
