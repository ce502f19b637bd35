import { PgClient } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import type { Redacted } from "effect"
import { Config, Duration, Effect, Layer, Option, Schema } from "effect"
import { mkdirSync } from "node:fs"
import { resolve } from "node:path"

const PoolSize = Schema.NumberFromString.pipe(
  Schema.decodeTo(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })))
)

/**
 * Settings of the store, read through `Config` when the layer is built. Timeouts are bounded so that a
 * hung or unreachable database is answered with `unavailable` well within the waitlist's 3 s.
 */
export const DatabaseConfig = Config.all({
  url: Config.option(Config.Redacted("DATABASE_URL")),
  dataDir: Config.String("DATA_DIR").pipe(Config.withDefault("./.data")),
  connectTimeout: Config.Duration("DB_CONNECT_TIMEOUT").pipe(Config.withDefault(Duration.seconds(1))),
  statementTimeout: Config.Duration("DB_STATEMENT_TIMEOUT").pipe(Config.withDefault(Duration.seconds(2))),
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

/**
 * PGlite persisted under `DATA_DIR`, served on a loopback port picked at start so that the very same
 * `PgClient` (and so every query, timeout and error path) serves both modes. PGlite has one backend
 * session, so the pool holds one connection: a transaction then never shares its session.
 */
const embedded = (config: DatabaseConfig) =>
  Layer.unwrap(Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(
      Effect.tryPromise(async () => {
        const dataDir = resolve(config.dataDir)
        mkdirSync(dataDir, { recursive: true })
        const db = await PGlite.create({ dataDir })
        const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0 })
        await server.start()
        return server
      }),
      (server) => Effect.promise(() => server.stop().then(() => server.db.close()))
    )
    const [host, port] = server.getServerConn().split(":")
    return PgClient.layer({
      ...pgSettings(config),
      host,
      port: Number(port),
      username: "postgres",
      database: "postgres",
      maxConnections: 1
    })
  }))

/** The store: external PostgreSQL when `DATABASE_URL` is set, otherwise the embedded PGlite. */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const config = yield* DatabaseConfig
  return Option.match(config.url, {
    onNone: () => embedded(config),
    onSome: (url) => external(config, url)
  })
}))
