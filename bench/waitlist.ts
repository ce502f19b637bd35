/**
 * The waitlist from outside, side by side with hand-written servers, in one run, against the same
 * PostgreSQL (BENCH_DATABASE_URL, default the local server), each server on a new database of its own
 * (dropped afterwards):
 *
 * - `service`: the service as `npm start` runs it (the command line of package.json's `start` script);
 * - `hand-written`: `bench/baseline.ts`, node:http + `pg`, one `INSERT … ON CONFLICT DO NOTHING` per request;
 * - `batched`: the same server batching concurrent inserts as the service does (`BENCH_BATCHED=false` skips it);
 * - `embedded`: the service on its embedded store (no PostgreSQL);
 * - `compare`: with `BENCH_COMPARE=<checkout>`, another checkout's service (a `git worktree` of an
 *   earlier commit, with its node_modules), so that a change is measured against what came before it.
 *
 * Each server runs pinned to CPU 0 and wrk to CPU 1 (PostgreSQL is left to the scheduler), so that the
 * CPU a server spends per request is what limits it and what is measured. The load: new addresses, and
 * a mix where 90% repeat known ones, at 16 and 64 connections; a warm-up, then interleaved rounds
 * (`loadsOfRound`); and the service's known/new req/s per round, since known addresses must be no slower.
 * Per cell: req/s, p50, p99, CPU per request of the server and of PostgreSQL (from /proc), resident
 * memory at the end of the cell; per server, the peak.
 *
 *   npm run bench                        # BENCH_ROUNDS=3 BENCH_SECONDS=8
 *   BENCH_SECONDS=3 BENCH_ROUNDS=1 BENCH_BATCHED=false node bench/waitlist.ts
 *   BENCH_COMPARE=/tmp/before node bench/waitlist.ts
 */
import { execFileSync, spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import {
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { scratchDatabase } from "./Database.ts"
import { canPin, pinned, pinning, startCommand } from "./Launch.ts"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const withBatched = process.env.BENCH_BATCHED !== "false"
const compare = process.env.BENCH_COMPARE
const output = process.env.BENCH_OUTPUT ?? join(root, "bench", "results", "waitlist.json")
const loads = [
  { mix: "unique", repeat: 0, connections: 64, name: "new addresses, 64 connections" },
  { mix: "unique", repeat: 0, connections: 16, name: "new addresses, 16 connections" },
  { mix: "90% known", repeat: 0.9, connections: 64, name: "90% known addresses, 64 connections" },
  { mix: "90% known", repeat: 0.9, connections: 16, name: "90% known addresses, 16 connections" }
] as const
type Load = typeof loads[number]
/**
 * The order a round runs the loads in: new and known addresses at one connection count side by side, so
 * that the machine's drift over a round (a minute or more with every server) does not decide which of
 * the two is faster; and every other round reversed, so that neither mix always runs first. The tables
 * keep the order of `loads`.
 */
const pairedLoads = [64, 16].flatMap((connections) => loads.filter((load) => load.connections === connections))
const loadsOfRound = (round: number) => round % 2 === 0 ? pairedLoads : [...pairedLoads].reverse()

// --- /proc ---

const ticksPerSecond = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim())
  } catch {
    return 100
  }
})()

const readOr = (path: string, fallback: string) => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return fallback
  }
}

/** utime + stime of a process (all its threads), in clock ticks; its parent's pid. */
const stat = (pid: number) => {
  const text = readOr(`/proc/${pid}/stat`, "")
  // The command name may hold spaces and parentheses: the fields are counted after its last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  return { ppid: Number(fields[1]), ticks: Number(fields[11] ?? 0) + Number(fields[12] ?? 0) }
}

const pids = () => readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number)

/** Resident memory now (`VmRSS`) and at its peak (`VmHWM`), in MB. */
const memory = (pid: number) => {
  const status = readOr(`/proc/${pid}/status`, "")
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN)
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 }
}

/**
 * The process that listens on `port`: the one started or one of its descendants (should the start
 * command fork), found by the inode of its listening socket.
 */
const listener = (started: number, port: number) => {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0")
  const inodes = new Set(
    ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((table) =>
      readOr(table, "").split("\n").slice(1).map((line) => line.trim().split(/\s+/))
        .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === "0A")
        .map((fields) => `socket:[${fields[9]}]`)
    )
  )
  const family = [started]
  const parents = new Map(pids().map((pid) => [pid, stat(pid).ppid]))
  for (let i = 0; i < family.length; i++) {
    for (const [pid, ppid] of parents) if (ppid === family[i]) family.push(pid)
  }
  const listening = family.find((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`)))
    } catch {
      return false
    }
  })
  return listening ?? started
}

// A client backend names its database in its process title: `postgres: <user> <database> <host(port)> …`.
const backendOf = /^postgres: \S+ (\S+) (?:\S+\(\d+\)|\[local\])/

/**
 * CPU ticks of every PostgreSQL process by pid: the shared processes (WAL writer, checkpointer, …) and
 * the backends of `database`, not those of other databases (another bench or test on the same server).
 */
const postgresTicks = (database: string | undefined) => {
  const ticks = new Map<number, number>()
  for (const pid of pids()) {
    if (readOr(`/proc/${pid}/comm`, "").trim() !== "postgres") continue
    const title = readOr(`/proc/${pid}/cmdline`, "").replaceAll("\0", " ")
    const backend = backendOf.exec(title)
    if (backend !== null && backend[1] !== database) continue
    ticks.set(pid, stat(pid).ticks)
  }
  return ticks
}

const ticksSince = (before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>) => {
  let sum = 0
  for (const [pid, ticks] of after) sum += ticks - (before.get(pid) ?? 0)
  return sum
}

// --- servers ---

interface Server {
  readonly name: string
  readonly command: string
  readonly port: number
  readonly child: ChildProcess
  /** The process that serves (the listener), measured. */
  readonly pid: number
  readonly database: string | undefined
  readonly idleRss: number
  readonly cleanup: () => Promise<void>
}

const freePort = async (): Promise<number> => {
  // Below the kernel's ephemeral range, where wrk's own connections take their ports.
  const port = 20000 + Math.floor(Math.random() * 12000)
  const free = await new Promise<boolean>((resolve) => {
    const probe = createServer().once("error", () => resolve(false))
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)))
  })
  return free ? port : freePort()
}

const start = async (options: {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly command: string
  readonly env: Record<string, string>
  readonly database: string | undefined
  readonly cleanup: () => Promise<void>
  readonly cwd?: string
}) => {
  const port = await freePort()
  const [command, args] = pinned(0, process.execPath, options.args)
  // The request log goes where a log shipper would take it, and costs the bench nothing to read.
  const child = spawn(command, args, {
    cwd: options.cwd ?? root,
    env: { ...process.env, ...options.env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", openSync("/dev/null", "w"), "inherit"]
  })
  let exited: number | null | undefined
  child.on("exit", (code) => exited = code)
  while ((await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false)) === false) {
    if (exited !== undefined) {
      await options.cleanup()
      throw new Error(`${options.name} exited with ${exited}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const pid = listener(child.pid!, port)
  return {
    name: options.name,
    command: options.command,
    port,
    child,
    pid,
    database: options.database,
    idleRss: memory(pid).rss,
    cleanup: options.cleanup
  } satisfies Server
}

const stop = async (server: Server) => {
  if (server.child.exitCode === null) {
    const exited = new Promise((resolve) => server.child.once("exit", resolve))
    server.child.kill("SIGTERM")
    await exited
  }
  await server.cleanup()
}

// --- load ---

interface Run {
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly requests: number
  readonly non2xx: number
  readonly socketErrors: number
  /** CPU per completed request, µs: the server's process, and PostgreSQL's processes. */
  readonly serverCpu: number
  readonly postgresCpu: number
  /** Resident memory of the server at the end of the run, MB. */
  readonly rss: number
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
  const serverBefore = stat(server.pid).ticks
  const postgresBefore = postgresTicks(server.database)
  const text = execFileSync(command, args, {
    encoding: "utf8",
    env: { ...process.env, BENCH_PREFIX: options.prefix, BENCH_REPEAT: String(options.repeat) }
  })
  const serverTicks = stat(server.pid).ticks - serverBefore
  const postgres = ticksSince(postgresBefore, postgresTicks(server.database))
  const latency = (percent: string) => {
    const match = new RegExp(`${percent}%\\s+([\\d.]+)(us|ms|s)`).exec(text)!
    return toMs(match[1]!, match[2]!)
  }
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)
  const requests = Number(/(\d+) requests in/.exec(text)![1])
  const perRequest = (ticks: number) => ticks / ticksPerSecond * 1e6 / requests
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)![1]),
    p50: latency("50"),
    p99: latency("99"),
    requests,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(text)?.[1] ?? 0),
    socketErrors: socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0),
    serverCpu: perRequest(serverTicks),
    postgresCpu: perRequest(postgres),
    rss: memory(server.pid).rss
  } satisfies Run
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

// --- the run ---

const run = Date.now().toString(36)
const service = startCommand(root)
const dataDir = mkdtempSync(join(tmpdir(), "waitlist-bench-"))

/** A new database for one server, dropped when it stops; migrated by the repository's command if asked. */
const database = async (role: string, migrate: boolean) => {
  const db = scratchDatabase(role)
  await db.create()
  if (migrate) {
    execFileSync(process.execPath, ["src/cli.ts", "db", "migrate"], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: db.url },
      stdio: "ignore"
    })
  }
  return db
}

const handWritten = async (name: string, writes: "single" | "batched") => {
  const db = await database(writes === "single" ? "baseline" : "batched", true)
  return start({
    name,
    args: ["bench/baseline.ts"],
    command: `node bench/baseline.ts (BASELINE_WRITES=${writes})`,
    env: { DATABASE_URL: db.url, BASELINE_WRITES: writes },
    database: db.name,
    cleanup: db.drop
  })
}

const servers: Array<Server> = []
try {
  const serviceDb = await database("service", false)
  servers.push(
    await start({
      name: "service",
      args: service.args,
      command: service.text,
      env: { ...service.env, DATABASE_URL: serviceDb.url },
      database: serviceDb.name,
      cleanup: serviceDb.drop
    }),
    await handWritten("hand-written", "single")
  )
  if (withBatched) servers.push(await handWritten("batched", "batched"))
  servers.push(
    await start({
      name: "embedded",
      args: service.args,
      command: `${service.text} (DATABASE_URL empty)`,
      env: { ...service.env, DATA_DIR: dataDir, DATABASE_URL: "" },
      database: undefined,
      cleanup: async () => rmSync(dataDir, { recursive: true, force: true })
    })
  )
  if (compare !== undefined) {
    const theirs = startCommand(compare)
    const compareDb = await database("compare", false)
    servers.push(
      await start({
        name: "compare",
        args: theirs.args,
        command: `${theirs.text} (in ${compare})`,
        env: { ...theirs.env, DATABASE_URL: compareDb.url },
        database: compareDb.name,
        cleanup: compareDb.drop,
        cwd: compare
      })
    )
  }

  process.stdout.write(
    `${servers.length} servers (${servers.map((server) => server.name).join(", ")}), ${rounds} interleaved `
      + `rounds of ${seconds} s per cell, `
      + `${pinning("each server on CPU 0, wrk on CPU 1")}, `
      + `service started as \`${service.text}\`\n`
  )
  // Warm-up: the JIT, the pools, and the known addresses of the repeat mix.
  for (const server of servers) {
    wrk(server, { connections: 64, seconds: 2, repeat: 0, prefix: `warm.${run}` })
    wrk(server, { connections: 64, seconds: 3, repeat: 1, prefix: `warm.${run}` })
  }

  const results = new Map<string, Array<Run>>()
  const key = (server: string, load: Load) => `${server}|${load.name}`
  for (let round = 0; round < rounds; round++) {
    for (const load of loadsOfRound(round)) {
      for (const server of servers) {
        const result = wrk(server, {
          connections: load.connections,
          seconds,
          repeat: load.repeat,
          prefix: `r${round}.${run}`
        })
        const runs = results.get(key(server.name, load)) ?? []
        results.set(key(server.name, load), [...runs, result])
      }
    }
  }

  const cells = servers.flatMap((server) =>
    loads.map((load) => {
      const runs = results.get(key(server.name, load))!
      const middle = (pick: (run: Run) => number) => median(runs.map(pick))
      return {
        server: server.name,
        load: load.name,
        mix: load.mix,
        connections: load.connections,
        rps: middle((r) => r.rps),
        p50: middle((r) => r.p50),
        p99: middle((r) => r.p99),
        serverCpu: middle((r) => r.serverCpu),
        postgresCpu: middle((r) => r.postgresCpu),
        rss: runs.at(-1)!.rss,
        requests: runs.reduce((sum, r) => sum + r.requests, 0),
        non2xx: runs.reduce((sum, r) => sum + r.non2xx, 0),
        socketErrors: runs.reduce((sum, r) => sum + r.socketErrors, 0),
        rounds: runs
      }
    })
  )
  const cell = (server: string, load: Load) => cells.find((c) => c.server === server && c.load === load.name)
  const memoryByServer = Object.fromEntries(servers.map((server) => [server.name, {
    command: server.command,
    idleRss: server.idleRss,
    peakRss: memory(server.pid).peak
  }]))

  const comparison = loads.map((load) => {
    const ours = cell("service", load)!
    const theirs = cell("hand-written", load)!
    const batched = cell("batched", load)
    const ratios = ours.rounds.map((r, round) => r.rps / theirs.rounds[round]!.rps)
    return {
      load: load.name,
      serviceRps: ours.rps,
      handWrittenRps: theirs.rps,
      ratio: ours.rps / theirs.rps,
      ratioRange: [Math.min(...ratios), Math.max(...ratios)],
      p99: { service: ours.p99, handWritten: theirs.p99, ratio: ours.p99 / theirs.p99 },
      cpu: {
        service: { server: ours.serverCpu, postgres: ours.postgresCpu },
        handWritten: { server: theirs.serverCpu, postgres: theirs.postgresCpu },
        ...(batched === undefined ? {} : { batched: { server: batched.serverCpu, postgres: batched.postgresCpu } })
      },
      batchedRps: batched?.rps,
      serviceRss: ours.rss
    }
  })

  const int = (n: number) => Math.round(n).toLocaleString("en-US")
  const ms = (n: number) => n.toFixed(1)
  const cpu = (c: { server: number; postgres: number } | undefined) =>
    c === undefined ? "–" : `${int(c.server)} + ${int(c.postgres)}`
  const row = (values: ReadonlyArray<string | number>) => `| ${values.join(" | ")} |`
  const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string | number>>) => [
    row(header),
    row(header.map(() => "---")),
    ...rows.map(row),
    ""
  ]
  const lines = [
    "",
    ...table(
      [
        "load",
        "service req/s",
        "hand-written req/s",
        "ratio",
        "ratio over rounds",
        "p99 service / hand-written",
        "service CPU µs/req (server + PostgreSQL)",
        "hand-written CPU µs/req",
        "batched req/s",
        "batched CPU µs/req",
        "service RSS MB"
      ],
      comparison.map((c) => [
        c.load,
        int(c.serviceRps),
        int(c.handWrittenRps),
        c.ratio.toFixed(2),
        `${c.ratioRange[0]!.toFixed(2)}–${c.ratioRange[1]!.toFixed(2)}`,
        `${ms(c.p99.service)} / ${ms(c.p99.handWritten)} ms`,
        cpu(c.cpu.service),
        cpu(c.cpu.handWritten),
        c.batchedRps === undefined ? "–" : int(c.batchedRps),
        cpu(c.cpu.batched),
        int(c.serviceRss)
      ])
    ),
    ...table(
      [
        "server",
        "load",
        "req/s",
        "p50 ms",
        "p99 ms",
        "server CPU µs/req",
        "PostgreSQL CPU µs/req",
        "RSS MB at end",
        "non-2xx",
        "socket errors"
      ],
      cells.map((c) => [
        c.server,
        c.load,
        int(c.rps),
        c.p50.toFixed(2),
        c.p99.toFixed(2),
        int(c.serverCpu),
        int(c.postgresCpu),
        int(c.rss),
        c.non2xx,
        c.socketErrors
      ])
    ),
    ...table(
      ["server", "started as", "RSS MB idle", "peak RSS MB"],
      servers.map((server) => [
        server.name,
        `\`${server.command}\``,
        int(server.idleRss),
        int(memoryByServer[server.name]!.peakRss)
      ])
    )
  ]
  const embedded = loads.filter((load) => load.mix === "unique").map((load) =>
    `${(cell("embedded", load)!.rps / cell("service", load)!.rps).toFixed(2)} at c=${load.connections}`
  )
  lines.push(`embedded/PostgreSQL req/s, unique: ${embedded.join(", ")}`)
  const ratio = comparison[0]!.ratio
  lines.push(`waitlist/baseline req/s at c=64 unique: ${ratio.toFixed(2)}`)
  const knownOverNew = [64, 16].map((connections) => {
    const [unique, known] = ["unique", "90% known"].map((mix) =>
      cells.find((c) => c.server === "service" && c.mix === mix && c.connections === connections)!
    )
    const byRound = known!.rounds.map((r, round) => (r.rps / unique!.rounds[round]!.rps).toFixed(2))
    return `${(known!.rps / unique!.rps).toFixed(2)} at c=${connections} (rounds ${byRound.join(", ")})`
  })
  lines.push(`service known/new req/s: ${knownOverNew.join("; ")}`)

  mkdirSync(dirname(output), { recursive: true })
  writeFileSync(
    output,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        rounds,
        seconds,
        pinned: canPin,
        servers: memoryByServer,
        comparison,
        cells,
        ratio
      },
      null,
      2
    ) + "\n"
  )
  process.stdout.write(`${lines.join("\n")}\n`)
} finally {
  for (const server of servers) await stop(server)
}
