/** The service process a bench measures, on a database of its own, and what it costs. */
import { execFileSync, spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { request } from "node:http"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { adminUrl } from "../Database.ts"
import { pinned, startCommand } from "../Launch.ts"
import { memory, ownMemory, processTree, sleep } from "./Support.ts"

/**
 * Where the service's code is: this repository, or `BENCH_SERVICE_ROOT` (another checkout, to measure a
 * version before a change in the same way).
 */
export const serviceRoot = process.env.BENCH_SERVICE_ROOT ?? join(dirname(fileURLToPath(import.meta.url)), "..", "..")
const serviceNodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "")

export interface Service {
  /** The start script it was started with (`npm start`'s command line, without npm). */
  readonly command: string
  readonly child: ChildProcess
  readonly pid: number
  readonly port: number
  /** Its inspector (`--inspect`), used only to run a full garbage collection before reading memory. */
  readonly inspectPort: number
  /** The service's own log lines that are not INFO (warnings, errors), and anything on stderr. */
  readonly complaints: Array<string>
  readonly levels: Record<string, number>
}

/**
 * Starts the service as `npm start` runs it (compiled, with its start script's node flags), pinned to CPU 0:
 * its stream process, forked by it, inherits the pinning.
 */
export const startService = async (env: Record<string, string>): Promise<Service> => {
  const port = 21000 + Math.floor(Math.random() * 20000)
  const inspectPort = port + 1
  const start = startCommand(serviceRoot)
  const [command, args] = pinned(0, process.execPath, [
    ...serviceNodeArgs,
    `--inspect=127.0.0.1:${inspectPort}`,
    ...start.args
  ])
  const child = spawn(command, args, {
    cwd: serviceRoot,
    env: {
      ...process.env,
      ...start.env,
      ...env,
      JOBS_API: "preview",
      PORT: String(port),
      HOST: "127.0.0.1",
      REQUEST_LOG: "false"
    },
    stdio: ["ignore", "pipe", "pipe"],
    // A session of its own, as a service started from its own terminal or unit is: where Linux groups
    // processes by session for the CPU (autogroup), the service then does not share its group's weight
    // with this driver and the readers, and the niceness it gives its stream process's group orders the
    // two as it would in production.
    detached: true
  })
  const complaints: Array<string> = []
  const levels: Record<string, number> = {}
  const lines = (source: NodeJS.ReadableStream, onLine: (line: string) => void) => {
    let rest = ""
    source.setEncoding("utf8")
    source.on("data", (chunk: string) => {
      const parts = (rest + chunk).split("\n")
      rest = parts.pop() ?? ""
      for (const line of parts) if (line !== "") onLine(line)
    })
  }
  lines(child.stdout!, (line) => {
    const level = /"level":"(\w+)"/.exec(line)?.[1] ?? "OTHER"
    levels[level] = (levels[level] ?? 0) + 1
    if (level !== "INFO" && level !== "DEBUG" && level !== "TRACE") complaints.push(line)
  })
  lines(child.stderr!, (line) => {
    if (/^(Debugger listening on|For help, see|Debugger attached|Debugger ending)/.test(line)) return
    complaints.push(`stderr: ${line}`)
    process.stderr.write(`[service] ${line}\n`)
  })
  for (let i = 0; i < 600; i++) {
    const status = await new Promise<number>((resolve) => {
      const req = request({ host: "127.0.0.1", port, path: "/readyz" }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on("error", () => resolve(0))
      req.end()
    })
    if (status === 200) {
      return { command: start.text, child, pid: child.pid!, port, inspectPort, complaints, levels }
    }
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`)
    await sleep(100)
  }
  throw new Error("the service did not become ready")
}

export const stopService = async (service: Service) => {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return
  const exited = new Promise((resolve) => service.child.once("exit", resolve))
  service.child.kill("SIGTERM")
  const timer = setTimeout(() => service.child.kill("SIGKILL"), 20_000)
  await exited
  clearTimeout(timer)
}

/** Runs two full garbage collections in the process whose inspector listens on `port`, and reads its heap. */
const collectGarbage = async (port: number) => {
  const targets = await fetch(`http://127.0.0.1:${port}/json/list`).then((r) => r.json()) as ReadonlyArray<
    { readonly webSocketDebuggerUrl: string }
  >
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl)
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve())
    socket.addEventListener("error", () => reject(new Error("cannot reach the service's inspector")))
  })
  let id = 0
  const send = (method: string) =>
    new Promise<unknown>((resolve) => {
      const mine = ++id
      const listener = (event: MessageEvent) => {
        const message = JSON.parse(String(event.data)) as { readonly id?: number; readonly result?: unknown }
        if (message.id !== mine) return
        socket.removeEventListener("message", listener)
        resolve(message.result)
      }
      socket.addEventListener("message", listener)
      socket.send(JSON.stringify({ id: mine, method }))
    })
  await send("HeapProfiler.collectGarbage")
  await send("HeapProfiler.collectGarbage")
  const usage = await send("Runtime.getHeapUsage") as { readonly usedSize: number }
  socket.close()
  return usage.usedSize / 1024 / 1024
}

/**
 * Memory of the service as it is (`VmRSS`), then after two full garbage collections (run through its
 * inspector): what is garbage and what is held. `heapUsedAfterGc` is V8's used heap after them. A service
 * with a stream process (`EVENTS_STREAM_PROCESS`) counts both processes: the stream process is given the
 * inspector port after the service's (as `node:cluster` does for its workers).
 */
export const measureMemory = async (service: Service) => {
  const rss = memory(service.pid, "VmRSS")
  const processes = processTree(service.pid)
  const heaps: Array<number> = []
  for (let i = 0; i < processes.length; i++) heaps.push(await collectGarbage(service.inspectPort + i))
  await sleep(200)
  const byProcess = processes.map((pid, i) => ({ rssAfterGc: ownMemory(pid, "VmRSS"), heapUsedAfterGc: heaps[i]! }))
  return {
    rss,
    rssAfterGc: byProcess.reduce((sum, each) => sum + each.rssAfterGc, 0),
    heapUsedAfterGc: heaps.reduce((sum, each) => sum + each, 0),
    /** The service first, then its stream process if it has one. */
    byProcess
  }
}

/**
 * Samples, every 100 ms, the transactions of other databases on the same PostgreSQL server that hold a
 * transaction id: events are published only once every transaction id of the cluster that precedes them
 * has ended, so these delay delivery too (a machine shared with other work).
 */
export const watchOtherTransactions = (ownDatabase: string) => {
  let running = true
  let samples = 0
  let samplesWithOne = 0
  let oldestMs = 0
  const done = (async () => {
    const watcher = new pg.Client({ connectionString: adminUrl })
    await watcher.connect()
    try {
      while (running) {
        const { rows } = await watcher.query<{ readonly age: number | null }>(
          `SELECT max(extract(epoch FROM clock_timestamp() - xact_start) * 1000)::float8 AS age
           FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND datname IS DISTINCT FROM $1`,
          [ownDatabase]
        )
        samples++
        const age = rows[0]?.age ?? null
        if (age !== null) {
          samplesWithOne++
          oldestMs = Math.max(oldestMs, age)
        }
        await sleep(100)
      }
    } finally {
      await watcher.end()
    }
  })()
  return {
    stop: async () => {
      running = false
      await done
      return { samples, samplesWithOne, oldestMs }
    }
  }
}

/** A key for a new account, from the command line, as an operator makes one. */
export const createKey = (env: Record<string, string>, account: string) =>
  execFileSync(process.execPath, [
    "src/cli.ts",
    "keys",
    "create",
    "--account",
    account,
    "--scopes",
    "jobs:read,jobs:write"
  ], { cwd: serviceRoot, env: { ...process.env, ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()
