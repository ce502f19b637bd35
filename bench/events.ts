/**
 * The event stream and the point-in-time view under load, in one run, on PostgreSQL (BENCH_DATABASE_URL,
 * default the local server): ONE service process (`node src/main.ts`, `JOBS_API=preview`) on a new
 * database, dropped at the end (also on failure).
 *
 * 1. Many open SSE streams (1,000) on one account's `GET /v1/events`: the process's RSS before and with
 *    them open, then about 200 changes (creates, constraint changes, cancels; sequential, a few ms apart)
 *    and the delay from each event's `occurredAt` (the server's clock when the change was made, just
 *    before its transaction) to its arrival at each stream (this process's clock: the same machine).
 *    Every stream must receive every event of the account once, in order: exits 1 if not.
 * 2. `GET /v1/jobs/{id}?at=P` (and `?revision=N`) on a Job with about 10 events and one with about
 *    10,000: medians, p99 and their ratio, interleaved on one connection, P picked at random among the
 *    Job's own positions.
 *
 *   npm run bench:events   # BENCH_STREAMS=1000 BENCH_CHANGES=200 BENCH_HISTORY=10000 BENCH_VIEWS=300
 *   BENCH_SERVICE_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench:events   # node flags for the service
 *
 * Prints a table and writes the same figures to bench/results/events-<timestamp>.json.
 */
import { Duration } from "effect"
import { execFileSync, spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { Agent, request } from "node:http"
import type { ClientRequest } from "node:http"
import { availableParallelism, loadavg } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { isDeepStrictEqual } from "node:util"
import pg from "pg"
import * as SseReader from "../src/client/SseReader.ts"
import { admin, adminUrl, databaseUrl } from "./Database.ts"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const streamCount = Number(process.env.BENCH_STREAMS ?? 1000)
const changeCount = Number(process.env.BENCH_CHANGES ?? 200)
const historyTarget = Number(process.env.BENCH_HISTORY ?? 10_000)
const viewCount = Number(process.env.BENCH_VIEWS ?? 300)
const outputDir = join(root, "bench", "results")
const serviceNodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "")

// ---------------------------------------------------------------------------------------------------
// Small helpers

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
/** Wall-clock time in milliseconds, with a fraction: comparable with the server's `occurredAt`. */
const clock = () => performance.timeOrigin + performance.now()

const percentile = (sorted: ArrayLike<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
const sortedCopy = (values: ReadonlyArray<number>) => Float64Array.from(values).sort()
const summary = (values: ReadonlyArray<number>) => {
  const sorted = sortedCopy(values)
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? NaN : sorted[sorted.length - 1]!
  }
}
const shuffle = <A>(items: Array<A>) => {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[items[i], items[j]] = [items[j]!, items[i]!]
  }
  return items
}
const pick = <A>(items: ReadonlyArray<A>) => items[Math.floor(Math.random() * items.length)]!
const fixed = (value: number, digits = 2) => Number.isFinite(value) ? value.toFixed(digits) : "-"
const grouped = (value: number) => value.toLocaleString("en-US")

/** Resident memory of a process, in MB: `VmRSS` (now) or `VmHWM` (the peak so far). */
const memory = (pid: number, field: "VmRSS" | "VmHWM") => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)
  if (match === null) throw new Error(`no ${field} in /proc/${pid}/status`)
  return Number(match[1]) / 1024
}

/** CPU time a process has used so far (user + system), in seconds. */
const cpuSeconds = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / clockTicks
}
const clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100

// ---------------------------------------------------------------------------------------------------
// The database and the service

interface Service {
  readonly child: ChildProcess
  readonly pid: number
  readonly port: number
  /** Its inspector (`--inspect`), used only to run a full garbage collection before reading memory. */
  readonly inspectPort: number
  /** The service's own log lines that are not INFO (warnings, errors), and anything on stderr. */
  readonly complaints: Array<string>
  readonly levels: Record<string, number>
}

const startService = async (env: Record<string, string>): Promise<Service> => {
  const port = 21000 + Math.floor(Math.random() * 20000)
  const inspectPort = port + 1
  const child = spawn(process.execPath, [...serviceNodeArgs, `--inspect=127.0.0.1:${inspectPort}`, "src/main.ts"], {
    cwd: root,
    env: { ...process.env, ...env, JOBS_API: "preview", PORT: String(port), HOST: "127.0.0.1", REQUEST_LOG: "false" },
    stdio: ["ignore", "pipe", "pipe"]
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
    if (status === 200) return { child, pid: child.pid!, port, inspectPort, complaints, levels }
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`)
    await sleep(100)
  }
  throw new Error("the service did not become ready")
}

const stopService = async (service: Service) => {
  if (service.child.exitCode !== null || service.child.signalCode !== null) return
  const exited = new Promise((resolve) => service.child.once("exit", resolve))
  service.child.kill("SIGTERM")
  const timer = setTimeout(() => service.child.kill("SIGKILL"), 20_000)
  await exited
  clearTimeout(timer)
}

/**
 * Memory of the service as it is (`VmRSS`), then after two full garbage collections (run through its
 * inspector): what is garbage and what is held. `heapUsed` is V8's used heap after them.
 */
const measureMemory = async (service: Service) => {
  const rss = memory(service.pid, "VmRSS")
  const targets = await fetch(`http://127.0.0.1:${service.inspectPort}/json/list`).then((r) =>
    r.json()
  ) as ReadonlyArray<{ readonly webSocketDebuggerUrl: string }>
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
  await sleep(200)
  return { rss, rssAfterGc: memory(service.pid, "VmRSS"), heapUsedAfterGc: usage.usedSize / 1024 / 1024 }
}

/**
 * Samples, every 100 ms, the transactions of other databases on the same PostgreSQL server that hold a
 * transaction id: events are published only once every transaction id of the cluster that precedes them
 * has ended, so these delay delivery too (a machine shared with other work).
 */
const watchOtherTransactions = (ownDatabase: string) => {
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
const createKey = (env: Record<string, string>, account: string) =>
  execFileSync(process.execPath, [
    "src/cli.ts",
    "keys",
    "create",
    "--account",
    account,
    "--scopes",
    "jobs:read,jobs:write"
  ], { cwd: root, env: { ...process.env, ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

// ---------------------------------------------------------------------------------------------------
// The API, over node:http with keep-alive

interface JobView {
  readonly id: string
  readonly jobRevision: number
  readonly status: string
  readonly asOf?: { readonly jobRevision: number; readonly position: number }
}

interface EventJson {
  readonly position: number
  readonly jobId: string
  readonly jobRevision: number
  readonly type: string
  readonly data: unknown
  readonly occurredAt: string
}

interface EventPageJson {
  readonly data: ReadonlyArray<EventJson>
  readonly nextAfter: number
}

interface Answer {
  readonly status: number
  readonly body: string
  /** From the request's start to the end of its answer. */
  readonly ms: number
}

let idempotencyCounter = 0
/** Requests sent again because a kept-alive connection was closed under them (the same Idempotency-Key). */
const resent: Array<string> = []

const client = (port: number, key: string, agent: Agent) => {
  const once = (method: string, path: string, text: string | undefined, idempotencyKey: string) =>
    new Promise<Answer>((resolve, reject) => {
      const started = process.hrtime.bigint()
      const req = request({
        host: "127.0.0.1",
        port,
        path,
        method,
        agent,
        headers: {
          authorization: `Bearer ${key}`,
          ...(text === undefined ? {} : {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(text),
            "idempotency-key": idempotencyKey
          })
        }
      }, (res) => {
        let data = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => data += chunk)
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: data,
            ms: Number(process.hrtime.bigint() - started) / 1e6
          }))
        res.on("error", reject)
      })
      req.on("error", reject)
      req.end(text)
    })
  /** One request; sent again (at most twice) when its connection was reset before any answer. */
  const call = async (method: string, path: string, body?: unknown) => {
    const text = body === undefined ? undefined : JSON.stringify(body)
    const idempotencyKey = `bench-${process.pid}-${++idempotencyCounter}`
    for (let attempt = 1;; attempt++) {
      try {
        return await once(method, path, text, idempotencyKey)
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code
        if (attempt === 3 || (code !== "ECONNRESET" && code !== "EPIPE")) throw error
        resent.push(`${method} ${path}: ${code} ${(error as Error).message}`)
      }
    }
  }
  const expect = async <A>(method: string, path: string, status: number, body?: unknown) => {
    const answer = await call(method, path, body)
    if (answer.status !== status) {
      throw new Error(`${method} ${path}: ${answer.status} (expected ${status}) ${answer.body.slice(0, 500)}`)
    }
    return JSON.parse(answer.body) as A
  }
  return {
    call,
    create: (text: string) => expect<JobView>("POST", "/v1/jobs", 201, { request: text, constraints: [] }),
    get: (id: string) => expect<JobView>("GET", `/v1/jobs/${id}`, 200),
    change: (job: JobView, note: string) =>
      expect<JobView>("POST", `/v1/jobs/${job.id}/constraints`, 200, {
        jobRevision: job.jobRevision,
        constraints: [{ type: "note", text: note }]
      }),
    cancel: (id: string) => expect<JobView>("POST", `/v1/jobs/${id}/cancel`, 200, {}),
    list: (limit: number) => expect<{ readonly data: ReadonlyArray<JobView> }>("GET", `/v1/jobs?limit=${limit}`, 200),
    /** Every event (of the account, or of one Job) after `after`, through the JSON pages. */
    events: async (jobId?: string, after = 0) => {
      const all: Array<EventJson> = []
      const base = jobId === undefined ? "/v1/events" : `/v1/jobs/${jobId}/events`
      for (let cursor = after;;) {
        const page = await expect<EventPageJson>("GET", `${base}?after=${cursor}&limit=1000`, 200)
        all.push(...page.data)
        if (page.data.length === 0) return all
        cursor = page.nextAfter
      }
    }
  }
}
type Client = ReturnType<typeof client>

/** Waits until none of the Jobs is `interpreting` (the background interpreter has had its say). */
const settled = async (api: Client, ids: ReadonlyArray<string>, within: number) => {
  const deadline = Date.now() + within
  for (;;) {
    const jobs = await Promise.all(ids.map(api.get))
    if (jobs.every((job) => job.status !== "interpreting")) return jobs
    if (Date.now() > deadline) throw new Error(`Jobs still interpreting after ${within} ms`)
    await sleep(50)
  }
}

// ---------------------------------------------------------------------------------------------------
// Server-Sent Events, parsed by hand

interface SseStream {
  readonly index: number
  readonly positions: Array<number>
  readonly types: Array<string>
  /** When the chunk that completed each event arrived (`clock()`). */
  readonly arrivals: Array<number>
  /** The parsed `data:` of each event, kept for a sample of the streams only. */
  readonly data: Array<unknown> | undefined
  retry: number | undefined
  heartbeats: number
  /** Events whose `id:` is not the `position` of their data (sampled streams only). */
  badIds: number
  status: number | undefined
  ended: boolean
  /** Closed by this bench: what follows is not the server's doing. */
  closed: boolean
  error: string | undefined
  request: ClientRequest | undefined
}

/** Opens one stream; resolves once its `retry:` line has arrived (or the stream failed). */
const openStream = (
  port: number,
  key: string,
  agent: Agent,
  index: number,
  path: string,
  sampled: boolean
) => {
  const stream: SseStream = {
    index,
    positions: [],
    types: [],
    arrivals: [],
    data: sampled ? [] : undefined,
    retry: undefined,
    heartbeats: 0,
    badIds: 0,
    status: undefined,
    ended: false,
    closed: false,
    error: undefined,
    request: undefined
  }
  const opened = new Promise<SseStream>((resolve) => {
    const fail = (message: string) => {
      if (!stream.closed) stream.error ??= message
      resolve(stream)
    }
    const req = request({
      host: "127.0.0.1",
      port,
      path,
      agent,
      headers: { authorization: `Bearer ${key}`, accept: "text/event-stream" }
    }, (res) => {
      stream.status = res.statusCode
      if (res.statusCode !== 200) {
        let body = ""
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => body += chunk)
        res.on("end", () => fail(`status ${res.statusCode}, retry-after ${res.headers["retry-after"]}: ${body}`))
        return
      }
      res.setEncoding("utf8")
      let arrived = 0
      const read = SseReader.makeReader({
        event: (message) => {
          const position = Number(message.id)
          stream.positions.push(position)
          stream.types.push(message.event)
          stream.arrivals.push(arrived)
          if (stream.data !== undefined) {
            const parsed = JSON.parse(message.data) as EventJson
            stream.data.push(parsed)
            if (parsed.position !== position) stream.badIds++
          }
        },
        retry: (after) => {
          stream.retry = Duration.toMillis(after)
          resolve(stream)
        },
        comment: () => stream.heartbeats++
      })
      res.on("data", (chunk: string) => {
        arrived = clock()
        read(chunk)
      })
      res.on("end", () => {
        stream.ended = true
        fail("ended by the server")
      })
      res.on("error", (error) => fail(error.message))
    })
    req.on("error", (error) => fail(error.message))
    stream.request = req
    req.end()
  })
  return { stream, opened }
}

/** Runs `task` over `items` with at most `limit` at once. */
const pooled = async <A, B>(items: ReadonlyArray<A>, limit: number, task: (item: A, i: number) => Promise<B>) => {
  const results = new Array<B>(items.length)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await task(items[i]!, i)
    }
  }))
  return results
}

// ---------------------------------------------------------------------------------------------------
// The run

const database = `bench_events_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`
const env = { DATABASE_URL: databaseUrl(database) }
let service: Service | undefined
let db: pg.Client | undefined
const streams: Array<SseStream> = []
let cleaned: Promise<void> | undefined

const close = (stream: SseStream) => {
  stream.closed = true
  stream.request?.destroy()
}

const cleanup = () =>
  cleaned ??= (async () => {
    for (const stream of streams) if (stream !== undefined) close(stream) // a hole when opening failed
    if (service !== undefined) await stopService(service).catch(() => undefined)
    await db?.end().catch(() => undefined)
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch((error: unknown) =>
      process.stderr.write(`could not drop database ${database}: ${String(error)}\n`)
    )
  })()

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(`${signal}: cleaning up\n`)
    void cleanup().finally(() => process.exit(130))
  })
}

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`)

const main = async () => {
  const machine = { cores: availableParallelism(), loadAverage: loadavg() }
  await admin(`CREATE DATABASE ${database}`)
  log(`database ${database}; load average ${machine.loadAverage.map((n) => n.toFixed(2)).join(" ")}`)
  service = await startService(env)
  db = new pg.Client({ connectionString: env.DATABASE_URL })
  await db.connect()
  // Idle connections are let go before the service's keep-alive timeout (5 s) closes them under a request.
  const agent = new Agent({ keepAlive: true, maxSockets: 16, timeout: 4000 })
  const streamAgent = new Agent({ keepAlive: true, maxSockets: streamCount + 16 })

  // ---- 1. SSE streams ----------------------------------------------------------------------------
  const sseKey = createKey(env, "bench-sse")
  const sse = client(service.port, sseKey, agent)

  // A little history, and the stream's code path warmed up with one stream opened and closed.
  const live: Array<JobView> = []
  for (let i = 0; i < 5; i++) live.push(await sse.create(`Book a table for ${2 + i} in Lisbon, history ${i}`))
  await settled(sse, live.map((job) => job.id), 60_000)
  const warm = openStream(service.port, sseKey, streamAgent, -1, "/v1/events?after=0", false)
  await warm.opened
  await sleep(300)
  close(warm.stream)
  const history = await sse.events()
  const lastBefore = history.at(-1)?.position ?? 0
  await sleep(2000)
  const memBefore = await measureMemory(service)
  log(`RSS before streams ${memBefore.rss.toFixed(1)} MB; opening ${streamCount} streams`)

  const openStarted = clock()
  // At most 100 opening at once. A 503 (the store did not answer in time) is counted, and the stream
  // opened again after its Retry-After, up to 5 times.
  const refusals: Array<string> = []
  await pooled(Array.from({ length: streamCount }, (_, i) => i), 100, async (i) => {
    for (let attempt = 1;; attempt++) {
      const { opened, stream } = openStream(
        service!.port,
        sseKey,
        streamAgent,
        i,
        "/v1/events?after=0",
        i % 100 === 0
      )
      streams[i] = stream
      await opened
      if (stream.status !== 503 || attempt === 5) return
      refusals.push(stream.error ?? "503")
      await sleep(1000 * Number(/retry-after (\d+)/.exec(stream.error ?? "")?.[1] ?? 1))
    }
  })
  const openSeconds = (clock() - openStarted) / 1000
  const failedToOpen = streams.filter((stream) => stream.retry === undefined || stream.error !== undefined)
  if (failedToOpen.length > 0) {
    throw new Error(
      `${failedToOpen.length} streams did not open: ${
        [...new Set(failedToOpen.map((stream) => stream.error ?? `status ${stream.status}`))].join("; ")
      }`
    )
  }
  // Every stream has caught up with the history before memory is read.
  for (let deadline = Date.now() + 60_000; streams.some((stream) => stream.positions.length < history.length);) {
    if (Date.now() > deadline) throw new Error("streams did not receive the history within 60 s")
    await sleep(50)
  }
  await sleep(2000)
  const memIdle = await measureMemory(service)
  log(`${streamCount} streams open in ${openSeconds.toFixed(1)} s; RSS ${memIdle.rss.toFixed(1)} MB; making changes`)

  // About `changeCount` changes, sequential, a few ms apart: a new Job every 20th, constraint changes
  // round robin, and the last three cancel a Job each.
  const writes: Array<number> = []
  /** When the answer to the write that made each event came back, by `jobId|type|jobRevision`. */
  const answered = new Map<string, number>()
  const made = (job: JobView, ...types: ReadonlyArray<string>) => {
    const now = clock()
    for (const type of types) answered.set(`${job.id}|${type}|${job.jobRevision}`, now)
    return job
  }
  let creates = 0
  let constraintChanges = 0
  let cancels = 0
  const writesStarted = clock()
  const serviceCpuStarted = cpuSeconds(service.pid)
  const others = watchOtherTransactions(database)
  const benchCpuStarted = process.cpuUsage()
  for (let i = 0; i < changeCount; i++) {
    const started = clock()
    if (i >= changeCount - 3 && live.length > 1) {
      const job = live.pop()!
      made(await sse.cancel(job.id), "job.cancelled")
      cancels++
    } else if (i % 20 === 0) {
      live.push(made(
        await sse.create(`Book a table for ${2 + (i % 6)} at an Italian restaurant in Lisbon, change ${i}`),
        "job.created"
      ))
      creates++
    } else {
      const at = i % live.length
      live[at] = made(await sse.change(live[at]!, `change ${i}`), "job.revised", "work.invalidated")
      constraintChanges++
    }
    writes.push(clock() - started)
    await sleep(3 + Math.random() * 4)
  }
  const writeSeconds = (clock() - writesStarted) / 1000
  const jobs = await sse.list(100)
  await settled(sse, jobs.data.map((job) => job.id), 120_000)
  const expected = await sse.events()
  const lastExpected = expected.at(-1)!.position
  for (let deadline = Date.now() + 60_000;;) {
    if (streams.every((stream) => (stream.positions.at(-1) ?? 0) >= lastExpected)) break
    if (Date.now() > deadline) break
    await sleep(50)
  }
  const phaseSeconds = (clock() - writesStarted) / 1000
  const otherTransactions = await others.stop()
  const serviceCpu = cpuSeconds(service.pid) - serviceCpuStarted
  const benchCpuUsage = process.cpuUsage(benchCpuStarted)
  const benchCpu = (benchCpuUsage.user + benchCpuUsage.system) / 1e6
  await sleep(1000) // anything arriving late (a duplicate) is counted too
  const rssPeak = memory(service.pid, "VmHWM")
  const memAfter = await measureMemory(service)

  // Every stream against the account's events as the JSON pages answer them.
  const index = new Map(expected.map((event, i) => [event.position, i]))
  let missing = 0
  let duplicated = 0
  let outOfOrder = 0
  let unexpected = 0
  let wrongType = 0
  let dataMismatches = 0
  let badIds = 0
  let heartbeats = 0
  const streamsWithProblems = new Set<number>()
  const delays: Array<number> = []
  const sinceAnswer: Array<number> = []
  const liveEvents = expected.filter((event) => event.position > lastBefore)
  const occurred = new Map(liveEvents.map((event) => [event.position, Date.parse(event.occurredAt)]))
  const answeredAt = new Map(liveEvents.flatMap((event) => {
    const at = answered.get(`${event.jobId}|${event.type}|${event.jobRevision}`)
    return at === undefined ? [] : [[event.position, at] as const]
  }))
  const firstArrival = new Map<number, number>()
  const lastArrival = new Map<number, number>()
  for (const stream of streams) {
    const seen = new Set<number>()
    const before = missing + duplicated + outOfOrder + unexpected + wrongType
    stream.positions.forEach((position, i) => {
      const at = index.get(position)
      if (at === undefined) unexpected++
      else if (expected[at]!.type !== stream.types[i]) wrongType++
      if (seen.has(position)) duplicated++
      seen.add(position)
      if (i > 0 && position <= stream.positions[i - 1]!) outOfOrder++
      const when = occurred.get(position)
      if (when !== undefined) {
        const arrived = stream.arrivals[i]!
        delays.push(arrived - when)
        const answer = answeredAt.get(position)
        if (answer !== undefined) sinceAnswer.push(arrived - answer)
        firstArrival.set(position, Math.min(firstArrival.get(position) ?? Infinity, arrived))
        lastArrival.set(position, Math.max(lastArrival.get(position) ?? -Infinity, arrived))
      }
    })
    for (const event of expected) if (!seen.has(event.position)) missing++
    if (stream.data !== undefined) {
      stream.data.forEach((data, i) => {
        const at = index.get(stream.positions[i]!)
        if (at !== undefined && !isDeepStrictEqual(data, expected[at])) dataMismatches++
      })
    }
    badIds += stream.badIds
    heartbeats += stream.heartbeats
    if (missing + duplicated + outOfOrder + unexpected + wrongType > before || stream.error !== undefined) {
      streamsWithProblems.add(stream.index)
    }
  }
  const endedEarly = streams.filter((stream) => stream.error !== undefined).length
  const delay = summary(delays)
  const firstDelay = summary(
    liveEvents.map((event) => (firstArrival.get(event.position) ?? NaN) - Date.parse(event.occurredAt)).filter(
      Number.isFinite
    )
  )
  const spread = summary(
    liveEvents.flatMap((event) => {
      const first = firstArrival.get(event.position)
      const last = lastArrival.get(event.position)
      return first === undefined || last === undefined ? [] : [last - first]
    })
  )
  const writeTimes = summary(writes)
  const afterAnswer = summary(sinceAnswer)

  for (const stream of streams) close(stream)
  await sleep(2000)
  const memClosed = await measureMemory(service)
  const eventTypes: Record<string, number> = {}
  for (const event of liveEvents) eventTypes[event.type] = (eventTypes[event.type] ?? 0) + 1

  const streamsResult = {
    streams: streamCount,
    openSeconds,
    openRefused: refusals.length,
    openRefusals: refusals.slice(0, 5),
    memoryMB: {
      before: memBefore,
      idle: memIdle,
      perStreamKB: {
        rss: ((memIdle.rss - memBefore.rss) * 1024) / streamCount,
        rssAfterGc: ((memIdle.rssAfterGc - memBefore.rssAfterGc) * 1024) / streamCount,
        heapUsedAfterGc: ((memIdle.heapUsedAfterGc - memBefore.heapUsedAfterGc) * 1024) / streamCount
      },
      afterDelivery: memAfter,
      peakRss: rssPeak,
      afterClosing: memClosed
    },
    cpu: {
      phaseSeconds,
      serviceSeconds: serviceCpu,
      serviceMicrosPerDelivery: (serviceCpu * 1e6) / Math.max(1, delays.length),
      benchSeconds: benchCpu
    },
    changes: { total: changeCount, creates, constraintChanges, cancels, seconds: writeSeconds, writeMs: writeTimes },
    historyEvents: history.length,
    liveEvents: liveEvents.length,
    liveEventTypes: eventTypes,
    deliveries: delays.length,
    expectedDeliveries: liveEvents.length * streamCount,
    delayMs: delay,
    /** Events made by the bench's own writes only: arrival - when the write's HTTP answer came back. */
    afterWriteAnswerMs: { events: answeredAt.size, ...afterAnswer },
    firstStreamDelayMs: firstDelay,
    fanOutSpreadMs: spread,
    check: {
      missing,
      duplicated,
      outOfOrder,
      unexpected,
      wrongType,
      streamsEndedEarly: endedEarly,
      streamsWithProblems: streamsWithProblems.size,
      sampledStreams: streams.filter((stream) => stream.data !== undefined).length,
      dataMismatches,
      idNotPosition: badIds
    },
    heartbeats,
    otherDatabasesWritingTransactions: otherTransactions
  }
  log(`streams checked (${missing} missing, ${duplicated} duplicated); building the histories for the view`)

  // ---- 2. Point-in-time view --------------------------------------------------------------------
  const viewKey = createKey(env, "bench-view")
  const view = client(service.port, viewKey, agent)
  const eventsOf = async (id: string) =>
    Number(
      (await db!.query<{ n: string }>("SELECT count(*)::text AS n FROM job_events WHERE job_id = $1", [id])).rows[0]!.n
    )

  // About 10 events: created and interpreted, then three constraint changes, each interpreted.
  let small = await view.create("Book a table for 4 at an Italian restaurant in Lisbon (short history)")
  ;[small] = await settled(view, [small.id], 60_000)
  while ((await eventsOf(small.id)) < 10) {
    small = await view.change(small!, `short ${small!.jobRevision}`)
    ;[small] = await settled(view, [small.id], 60_000)
  }

  // About `historyTarget` events: constraint changes in a row (each 2 events, 3 when the interpreter
  // answers the revision before the next change).
  let large = await view.create("Book a table for 4 at an Italian restaurant in Lisbon (long history)")
  const buildStarted = clock()
  const buildCpuStarted = cpuSeconds(service.pid)
  let largeChanges = 0
  for (let count = await eventsOf(large.id); count < historyTarget;) {
    const batch = Math.max(1, Math.min(250, Math.ceil((historyTarget - count) / 2.5)))
    for (let i = 0; i < batch; i++) {
      large = await view.change(large, `long ${large.jobRevision}`)
      largeChanges++
    }
    count = await eventsOf(large.id)
    log(
      `long history: ${count} events after ${largeChanges} changes, ${((clock() - buildStarted) / 1000).toFixed(0)} s`
    )
  }
  const buildSeconds = (clock() - buildStarted) / 1000
  const buildCpu = cpuSeconds(service.pid) - buildCpuStarted
  await settled(view, [small!.id, large.id], 120_000)

  const smallEvents = await view.events(small!.id)
  const largeEvents = await view.events(large.id)
  const subjects = [
    { name: "short", job: await view.get(small!.id), events: smallEvents },
    { name: "long", job: await view.get(large.id), events: largeEvents }
  ] as const

  type Kind = "at" | "revision" | "current"
  const kinds: ReadonlyArray<Kind> = ["at", "revision", "current"]
  const timings: Record<string, Array<number>> = {}
  let wrongViews = 0
  const viewErrors: Array<string> = []
  const once = async (kind: Kind, subject: typeof subjects[number]) => {
    const { job, events } = subject
    const position = kind === "at" ? pick(events).position : undefined
    const revision = kind === "revision" ? 1 + Math.floor(Math.random() * job.jobRevision) : undefined
    const path = `/v1/jobs/${job.id}${
      position !== undefined ? `?at=${position}` : revision !== undefined ? `?revision=${revision}` : ""
    }`
    const answer = await view.call("GET", path)
    const body = answer.status === 200 ? JSON.parse(answer.body) as JobView : undefined
    const right = body !== undefined && body.id === job.id
      && (position === undefined || body.asOf?.position === position)
      && (revision === undefined || body.asOf?.jobRevision === revision)
      && (kind !== "current" || body.asOf === undefined)
    if (!right) {
      wrongViews++
      if (viewErrors.length < 5) viewErrors.push(`${path}: ${answer.status} ${answer.body.slice(0, 300)}`)
    }
    return answer.ms
  }
  // Warm-up, then every request of every cell in one random order, one at a time.
  for (const kind of kinds) for (const subject of subjects) for (let i = 0; i < 30; i++) await once(kind, subject)
  const plan = shuffle(
    kinds.flatMap((kind) => subjects.flatMap((subject) => Array.from({ length: viewCount }, () => ({ kind, subject }))))
  )
  for (const { kind, subject } of plan) (timings[`${kind}|${subject.name}`] ??= []).push(await once(kind, subject))

  const cell = (kind: Kind, name: string) => summary(timings[`${kind}|${name}`]!)
  const viewRows = kinds.flatMap((kind) =>
    subjects.map((subject) => ({
      query: kind,
      job: subject.name,
      events: subject.events.length,
      revisions: subject.job.jobRevision,
      ms: cell(kind, subject.name)
    }))
  )
  const ratios = Object.fromEntries(kinds.map((kind) => [kind, {
    median: cell(kind, "long").p50 / cell(kind, "short").p50,
    p99: cell(kind, "long").p99 / cell(kind, "short").p99
  }]))
  const viewResult = {
    requestsPerCell: viewCount,
    history: {
      shortEvents: smallEvents.length,
      longEvents: largeEvents.length,
      longChanges: largeChanges,
      buildSeconds,
      serviceCpuMsPerChange: (buildCpu * 1000) / largeChanges
    },
    rows: viewRows,
    ratiosLongOverShort: ratios,
    wrongViews,
    viewErrors
  }

  const memEnd = await measureMemory(service)

  // ---- Report --------------------------------------------------------------------------------------
  const s = streamsResult
  const out: Array<string> = []
  const row = (label: string, value: string) => out.push(`  ${label.padEnd(50)}${value}`)
  out.push(
    "",
    `Event stream: ${grouped(streamCount)} SSE streams on one service process (one account's GET /v1/events)`
  )
  const m = s.memoryMB
  out.push(
    `  ${"service memory, MB (VmRSS; then after a full GC)".padEnd(50)}${"RSS".padStart(8)}${"RSS GC'd".padStart(10)}${
      "heap GC'd".padStart(11)
    }`
  )
  const memoryRow = (
    label: string,
    at: { readonly rss: number; readonly rssAfterGc: number; readonly heapUsedAfterGc: number }
  ) =>
    out.push(
      `  ${label.padEnd(50)}${fixed(at.rss, 1).padStart(8)}${fixed(at.rssAfterGc, 1).padStart(10)}${
        fixed(at.heapUsedAfterGc, 1).padStart(11)
      }`
    )
  memoryRow("before opening streams", m.before)
  memoryRow(`with ${grouped(streamCount)} idle streams`, m.idle)
  out.push(
    `  ${"  increase per stream, KB".padEnd(50)}${fixed(m.perStreamKB.rss, 1).padStart(8)}${
      fixed(m.perStreamKB.rssAfterGc, 1).padStart(10)
    }${fixed(m.perStreamKB.heapUsedAfterGc, 1).padStart(11)}`
  )
  memoryRow("after the deliveries (streams still open)", m.afterDelivery)
  memoryRow("2 s after closing the streams", m.afterClosing)
  memoryRow("end of the run", memEnd)
  row("peak RSS (VmHWM) during the deliveries", `${fixed(m.peakRss, 1)} MB`)
  row(
    `time to open ${grouped(streamCount)} streams (100 at once)`,
    `${fixed(s.openSeconds, 1)} s; answered 503 (then opened again): ${refusals.length}`
  )
  for (const refusal of new Set(refusals)) out.push(`    ${refusal.slice(0, 300)}`)
  row(
    "changes made (sequential, 3-7 ms apart)",
    `${s.changes.total} (${creates} creates, ${constraintChanges} constraint changes, ${cancels} cancels) in ${
      fixed(s.changes.seconds, 1)
    } s; write p50 ${fixed(writeTimes.p50)} ms, p99 ${fixed(writeTimes.p99)} ms`
  )
  row(
    "events they made",
    `${s.liveEvents} (${
      Object.entries(eventTypes).map(([type, n]) => `${type} ${n}`).join(", ")
    }), after ${s.historyEvents} of history`
  )
  row("deliveries (event x stream)", `${grouped(s.deliveries)} of ${grouped(s.expectedDeliveries)} expected`)
  out.push("  delay = arrival at the stream (this process's clock) - the event's occurredAt (the server's clock,")
  out.push("          taken when the change began, just before its transaction); both on this machine")
  row(
    "delay over all deliveries",
    `p50 ${fixed(delay.p50)} ms   p99 ${fixed(delay.p99)} ms   max ${fixed(delay.max)} ms`
  )
  row(
    `arrival - the write's answer (${answeredAt.size} events)`,
    `p50 ${fixed(afterAnswer.p50)} ms   p99 ${fixed(afterAnswer.p99)} ms   max ${fixed(afterAnswer.max)} ms`
  )
  row(
    "delay to the first stream, per event",
    `p50 ${fixed(firstDelay.p50)} ms   p99 ${fixed(firstDelay.p99)} ms   max ${fixed(firstDelay.max)} ms`
  )
  row(
    "fan-out spread (last - first stream)",
    `p50 ${fixed(spread.p50)} ms   p99 ${fixed(spread.p99)} ms   max ${fixed(spread.max)} ms`
  )
  row(
    "every stream, every event, once, in order",
    `missing: ${missing}, duplicated: ${duplicated}, out of order: ${outOfOrder}, unexpected: ${unexpected}, wrong type: ${wrongType}`
  )
  row(
    "",
    `streams ended early: ${endedEarly}; data compared on ${s.check.sampledStreams} streams: ${dataMismatches} mismatches, ${badIds} ids not the position`
  )
  row("heartbeats received (all streams)", `${grouped(heartbeats)}`)
  row(
    "other databases' writing transactions meanwhile",
    `open in ${otherTransactions.samplesWithOne} of ${otherTransactions.samples} samples (every 100 ms), the oldest ${
      fixed(otherTransactions.oldestMs, 0)
    } ms old (events wait for every older transaction id of the cluster)`
  )
  row(
    "CPU from the first change to the last delivery",
    `${fixed(s.cpu.phaseSeconds, 1)} s of wall time: service ${fixed(s.cpu.serviceSeconds, 1)} s (${
      fixed(s.cpu.serviceMicrosPerDelivery, 1)
    } us per delivery, all included), this bench ${fixed(s.cpu.benchSeconds, 1)} s`
  )

  out.push("", `Point-in-time view: GET /v1/jobs/{id}?at=P / ?revision=N / (current), ${viewCount} requests per cell,`)
  out.push("  cells interleaved in one random order, one request at a time on one keep-alive connection")
  out.push(
    `  long history built with ${grouped(largeChanges)} constraint changes in ${
      fixed(buildSeconds, 1)
    } s (service CPU ${fixed(viewResult.history.serviceCpuMsPerChange)} ms per change, no stream open)`
  )
  out.push(
    `  ${"query".padEnd(12)}${"job".padEnd(8)}${"events".padStart(8)}${"revisions".padStart(11)}${
      "median ms".padStart(11)
    }${"p99 ms".padStart(9)}${"max ms".padStart(9)}`
  )
  for (const r of viewRows) {
    out.push(
      `  ${(r.query === "at" ? "?at=P" : r.query === "revision" ? "?revision=N" : "(current)").padEnd(12)}${
        r.job.padEnd(8)
      }${grouped(r.events).padStart(8)}${grouped(r.revisions).padStart(11)}${fixed(r.ms.p50, 3).padStart(11)}${
        fixed(r.ms.p99, 3).padStart(9)
      }${fixed(r.ms.max, 3).padStart(9)}`
    )
  }
  for (const kind of kinds) {
    out.push(
      `  ratio long/short ${
        (kind === "at" ? "?at=P" : kind === "revision" ? "?revision=N" : "(current)").padEnd(12)
      } median ${fixed(ratios[kind]!.median, 3)}   p99 ${fixed(ratios[kind]!.p99, 3)}`
    )
  }
  row("views answered wrong (status, id, asOf)", `${wrongViews}`)
  for (const error of viewErrors) out.push(`    ${error}`)

  const levels = Object.entries(service.levels).map(([level, n]) => `${level} ${n}`).join(", ")
  out.push(
    "",
    `Service log lines: ${levels === "" ? "none" : levels}; warnings, errors and stderr: ${service.complaints.length}`
  )
  for (const line of service.complaints.slice(0, 10)) out.push(`  ${line.slice(0, 400)}`)
  out.push(`Requests sent again after their kept-alive connection was reset: ${resent.length}`)
  for (const line of resent.slice(0, 5)) out.push(`  ${line}`)
  out.push(
    `Machine: ${machine.cores} cores, load average at start ${machine.loadAverage.map((n) => n.toFixed(2)).join(" ")}`
  )
  process.stdout.write(`${out.join("\n")}\n`)

  const failed = missing + duplicated + outOfOrder + unexpected + wrongType + dataMismatches + badIds + endedEarly
      + wrongViews > 0
  const timestamp = new Date().toISOString().replace(/[:.]/g, "-")
  mkdirSync(outputDir, { recursive: true })
  const file = join(outputDir, `events-${timestamp}.json`)
  writeFileSync(
    file,
    `${
      JSON.stringify(
        {
          date: new Date().toISOString(),
          machine,
          database: "postgresql",
          streams: streamsResult,
          memoryAtEndMB: memEnd,
          view: viewResult,
          resent,
          serviceLog: { levels: service.levels, complaints: service.complaints.slice(0, 50) },
          ok: !failed
        },
        null,
        2
      )
    }\n`
  )
  process.stdout.write(`\nWritten to ${join("bench", "results", `events-${timestamp}.json`)}\n`)
  if (failed) {
    process.stdout.write("FAILED: a stream did not receive every event exactly once in order, or a view was wrong\n")
  }
  return failed ? 1 : 0
}

let code = 1
try {
  code = await main()
} catch (error) {
  process.stderr.write(
    `bench/events.ts failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`
  )
  if (service !== undefined && service.complaints.length > 0) {
    process.stderr.write(`service complaints:\n${service.complaints.slice(0, 20).join("\n")}\n`)
  }
  code = 1
} finally {
  await cleanup()
}
process.exit(code)
