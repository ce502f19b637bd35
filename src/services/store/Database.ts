import * as PgClient from "@effect/sql-pg/PgClient"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { promisify } from "node:util"
import type { PgliteSessions } from "./PgliteSessions.ts"

const PoolSize = Schema.NumberFromString.pipe(
  Schema.decodeTo(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })))
)

const PostgresUrl = Schema.Redacted(Schema.String.check(Schema.makeFilter((value) => {
  try {
    const { protocol } = new URL(value)
    return protocol === "postgres:" || protocol === "postgresql:" || "expected a postgres:// or postgresql:// URL"
  } catch {
    return "expected a postgres:// or postgresql:// URL"
  }
})))

// A store operation, waiting for a connection included, must end in time for the waitlist to answer
// within 3 s (docs/API.md, "The rules, in the order they are checked", rule 3), whatever the settings.
const Timeout = Schema.DurationFromString.check(
  Schema.makeFilter((duration) =>
    (Duration.isGreaterThan(duration, Duration.zero) && Duration.isLessThanOrEqualTo(duration, Duration.millis(2500)))
    || "expected a duration above zero and at most 2500 millis"
  )
)

/**
 * Settings of the store, read through `Config` when the layer is built. Timeouts are bounded so that a
 * hung or unreachable database is answered with `unavailable` well within the waitlist's 3 s.
 */
export const DatabaseConfig = Config.all({
  url: Config.option(Config.schema(PostgresUrl, "DATABASE_URL")),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data")),
  connectTimeout: Config.schema(Timeout, "DB_CONNECT_TIMEOUT").pipe(Config.withDefault(Duration.seconds(1))),
  statementTimeout: Config.schema(Timeout, "DB_STATEMENT_TIMEOUT").pipe(
    Config.withDefault(Duration.seconds(2))
  ),
  poolSize: Config.schema(PoolSize, "DB_POOL_SIZE").pipe(Config.withDefault(10))
})
export type DatabaseConfig = Config.Success<typeof DatabaseConfig>

const pgSettings = (config: DatabaseConfig) => ({
  connectTimeout: config.connectTimeout,
  keepAlive: Duration.seconds(10),
  applicationName: "request-coordination",
  startupParameters: { statement_timeout: String(Duration.toMillis(config.statementTimeout)) }
})

/** A PostgreSQL server named by `DATABASE_URL`. */
const external = (config: DatabaseConfig, url: Redacted.Redacted) =>
  PgClient.layer({ ...pgSettings(config), url, maxConnections: config.poolSize })

const lockFile = "serving.lock"

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** The service serves its data directory; the command line borrows it for the length of a command. */
export type Role = "service" | "command"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * PGlite is a single-process database, so one process at a time opens a data directory: the one that
 * creates `serving.lock`, which holds its pid, then its port and role. The command line connects to a
 * service's port; a service waits for a command to finish rather than depend on it, and refuses to
 * share a directory with another service (which could not outlive it). A lock left by a dead process
 * is taken over. Answers the owner's port, or `undefined` once this process owns the directory.
 */
const claimOrFind = async (dataDir: string, role: Role): Promise<number | undefined> => {
  const path = join(dataDir, lockFile)
  for (let attempt = 0; attempt < 600; attempt++) {
    try {
      writeFileSync(path, `${process.pid}`, { flag: "wx" })
      return undefined
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
    const [pid = "0", port = "0", owner] = readFileSync(path, "utf8").trim().split(" ")
    if (!isAlive(Number(pid))) {
      rmSync(path, { force: true })
    } else if (owner === "service" && role === "service") {
      throw new Error(`the embedded database is already served by process ${pid}; use DATABASE_URL to run several`)
    } else if (owner === "service" && Number(port) > 0) {
      return Number(port)
    } else {
      await sleep(100)
    }
  }
  throw new Error(`${path} stays held by process ${readFileSync(path, "utf8").split(" ")[0]}`)
}

/**
 * The embedded server's settings. PostgreSQL's default cache of 128 MB is the largest part of its
 * memory (PGlite keeps it inside the process); the waitlist's and the Jobs' working sets are a small
 * fraction of 16 MB, and pages beyond it come from the operating system's file cache.
 */
const embeddedSettings = ["-c", "shared_buffers=16MB"]

/**
 * Creates the database in a new data directory, in a process of its own: PGlite's `initdb` is another
 * WebAssembly instance whose memory (about 450 MB at its peak) would otherwise stay in the service's
 * resident memory long after it has finished.
 */
const initialize = async (dataDir: string) => {
  if (existsSync(join(dataDir, "PG_VERSION"))) return
  const pglite = JSON.stringify(import.meta.resolve("@electric-sql/pglite"))
  await promisify(execFile)(process.execPath, [
    "--input-type=module",
    "--eval",
    `const { PGlite } = await import(${pglite}); await (await PGlite.create({ dataDir: process.argv[1] })).close()`,
    dataDir
  ])
}

/**
 * Opens the data directory, or finds the service that serves it: the service serves its sessions on a
 * loopback port, for the command line.
 */
const open = async (dataDir: string, role: Role): Promise<Embedded> => {
  mkdirSync(dataDir, { recursive: true })
  const owner = await claimOrFind(dataDir, role)
  if (owner !== undefined) return { _tag: "Borrowed", port: owner }
  // Loaded only here: a service on PostgreSQL does not carry the embedded database in its memory.
  const [{ PGlite }, PgliteSessions] = await Promise.all([
    import("@electric-sql/pglite"),
    import("./PgliteSessions.ts")
  ])
  await initialize(dataDir)
  const db = await PGlite.create({ dataDir, startParams: [...PGlite.defaultStartParams, ...embeddedSettings] })
  const sessions = PgliteSessions.make(db)
  const port = role === "service" ? await sessions.listen() : 0
  writeFileSync(join(dataDir, lockFile), `${process.pid} ${port} ${role}`)
  return { _tag: "Owned", sessions, close: () => sessions.close().then(() => db.close()) }
}

type Embedded =
  | { readonly _tag: "Borrowed"; readonly port: number }
  | {
    readonly _tag: "Owned"
    readonly sessions: PgliteSessions
    readonly close: () => Promise<void>
  }

const release = (dataDir: string) => {
  const path = join(dataDir, lockFile)
  try {
    if (readFileSync(path, "utf8").split(" ")[0] === String(process.pid)) rmSync(path, { force: true })
  } catch {
    // Already gone: nothing to release.
  }
}

/** Connections to the embedded database: several share its one session (`PgliteSessions`). */
const embeddedConnections = 4

/**
 * PGlite persisted under `DATA_DIR`, reached through the very same `PgClient` (and so every query,
 * timeout and error path) as PostgreSQL: in process when this process opened it, on the owner's
 * loopback port when a command borrows it from the service.
 */
const embedded = (config: DatabaseConfig, role: Role) =>
  Layer.unwrap(Effect.gen(function*() {
    const dataDir = resolve(config.dataDir)
    const store = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => open(dataDir, role),
        catch: (cause) => new Error(`DATA_DIR ${dataDir}: ${(cause as Error).message}`, { cause })
      }),
      (store) =>
        store._tag === "Borrowed"
          ? Effect.void
          : Effect.promise(() => store.close().finally(() => release(dataDir)))
    )
    const common = { ...pgSettings(config), username: "postgres", database: "postgres", ssl: false } as const
    return store._tag === "Owned"
      ? PgClient.layer({ ...common, stream: store.sessions.connect, maxConnections: embeddedConnections })
      : PgClient.layer({ ...common, host: "127.0.0.1", port: store.port, maxConnections: 1 })
  }))

/**
 * The store: external PostgreSQL when `DATABASE_URL` is set, otherwise the embedded PGlite, opened as
 * the service (`layer`) or as a command that borrows it (`layerCommand`).
 */
const layerAs = (role: Role) =>
  Layer.unwrap(Effect.gen(function*() {
    const config = yield* DatabaseConfig
    return Option.match(config.url, {
      onNone: () => embedded(config, role),
      onSome: (url) => external(config, url)
    })
  }))

export const layer = layerAs("service")
export const layerCommand = layerAs("command")
