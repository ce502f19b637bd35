import { execFileSync, spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { randomUUID } from "node:crypto"
import { once } from "node:events"
import { createServer } from "node:net"
import { dirname, join } from "node:path"
import type { Readable } from "node:stream"
import { fileURLToPath } from "node:url"
import pg from "pg"

/** The project's root, where `src/main.ts` and `src/cli.ts` are run from. */
export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Hands what a child process writes to the test's console, where Vitest keeps it with the test that is
 * running and prints it only if that test fails (`silent: "passed-only"`, vitest.config.ts): a service's
 * expected errors and warnings would otherwise fill a passing run's output.
 */
export const relay = (output: Readable | null) => {
  output?.on("data", (chunk: Buffer) => console.error(chunk.toString().trimEnd()))
}

/** For `execFileSync`: stderr kept in the error thrown on a failure, not written to the run's output. */
export const quietly = { stdio: "pipe" } as const

export interface ServiceProcess {
  readonly child: ChildProcess
  readonly base: string
}

/**
 * The service as an operator runs it (`node src/main.ts`, the Job API preview on, no request log) on a
 * random loopback port, under `env`; answered once `/readyz` says ready (or, with `until: "listening"`,
 * once it answers at all). `onSpawn` receives it as soon as it is spawned, so that a caller can always
 * end it, even when it never becomes ready.
 */
/**
 * A loopback port nothing listens on, below the kernel's ephemeral range (32768 and up on Linux): a
 * port in that range can be taken meanwhile by any outgoing connection's local end, and the service
 * then cannot listen.
 */
export const freePort = async (): Promise<number> => {
  for (;;) {
    const port = 20000 + Math.floor(Math.random() * 12000)
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer()
      probe.once("error", () => resolve(false))
      probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)))
    })
    if (free) return port
  }
}

export const start = async (
  env: Record<string, string>,
  options: {
    readonly until?: "ready" | "listening"
    readonly onSpawn?: (service: ServiceProcess) => void
    /** The port to listen on (a process started again where its clients know it); a free one by default. */
    readonly port?: number
    /** A file descriptor that receives the process's standard output and error; by default only its error, on the test's. */
    readonly output?: number
  } = {}
): Promise<ServiceProcess> => {
  const port = options.port ?? await freePort()
  const child = spawn(process.execPath, ["src/main.ts"], {
    cwd: root,
    env: { ...process.env, ...env, JOBS_API: "preview", PORT: String(port), HOST: "127.0.0.1", REQUEST_LOG: "false" },
    stdio: ["ignore", options.output ?? "pipe", options.output ?? "pipe"]
  })
  // Into a file when one is given (the chaos test keeps each process's output), else with the test.
  if (options.output === undefined) {
    relay(child.stdout)
    relay(child.stderr)
  }
  const service = { child, base: `http://127.0.0.1:${port}` }
  options.onSpawn?.(service)
  // A liveness guard: a start takes seconds, and many times that on a loaded machine.
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    const status = await fetch(`${service.base}/readyz`).then((r) => r.status, () => 0)
    if (status === 200 || (options.until === "listening" && status > 0)) return service
    // A process killed by a signal has no exit code, only the signal.
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the service exited with ${child.exitCode ?? child.signalCode}`)
    }
    await sleep(100)
  }
  throw new Error("the service did not become ready in 120 s")
}

/**
 * Ends a process and waits for it: `signal`, then SIGKILL if it has not exited after `grace` ms (a
 * liveness guard: a caller that asserts a graceful exit gives a grace that holds on a loaded machine).
 */
export const kill = async (child: ChildProcess, signal: NodeJS.Signals, grace = 10_000) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = once(child, "exit")
  child.kill(signal)
  const timer = setTimeout(() => child.kill("SIGKILL"), grace)
  await exited
  clearTimeout(timer)
}

/** A key for a new account, from the command line, as an operator makes one. */
export const createKey = (env: Record<string, string>, account: string, scopes = "jobs:read,jobs:write") =>
  execFileSync(process.execPath, ["src/cli.ts", "keys", "create", "--account", account, "--scopes", scopes], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: "utf8",
    ...quietly
  }).trim()

/**
 * A minimal JSON caller of a service process for `key`: every POST carries a new Idempotency-Key, and
 * an answer other than 2xx is thrown, with its body.
 */
export const caller = (base: string, key: string, options?: { readonly retryUnavailable?: number }) => {
  // Unique across callers made in the same millisecond, as well as within one.
  const prefix = randomUUID()
  let counter = 0
  return async <A>(method: string, path: string, body?: unknown): Promise<A> => {
    const idempotencyKey = `process-${prefix}-${++counter}`
    // With `retryUnavailable`, a 503 is retried as the contract asks a client to: after its
    // Retry-After, with the same Idempotency-Key, so that a retried write happens once.
    for (let attempt = 0;; attempt++) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body === undefined ? {} : { "content-type": "application/json", "idempotency-key": idempotencyKey })
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await response.text()
      if (response.status === 503 && attempt < (options?.retryUnavailable ?? 0)) {
        await sleep(Number(response.headers.get("retry-after") ?? 1) * 1000)
        continue
      }
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
      return JSON.parse(text) as A
    }
  }
}

/**
 * A database of its own for service processes, on the server of `adminUrl` (a PostgreSQL URL): `env`
 * names it to a process; `create` makes it (a test may start a service before it exists); `drop`
 * removes it, with its connections, and closes the admin connection.
 */
export const database = async (adminUrl: string, prefix: string) => {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    env: { DATABASE_URL: url.toString() },
    create: async () => {
      await admin.query(`CREATE DATABASE ${name}`)
    },
    drop: async () => {
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await admin.end()
      }
    }
  }
}
