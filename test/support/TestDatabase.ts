import { PgClient } from "@effect/sql-pg"
import { ConfigProvider, Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The real PostgreSQL the Live suites run against when set; otherwise they run on embedded PGlite. */
export const adminUrl = process.env.TEST_DATABASE_URL
export const kind = adminUrl === undefined ? "PGlite" : "PostgreSQL"

/** A new database on the server of `url`, dropped (with its connections) when the scope closes. */
export const freshPostgresDatabase = (url: string) => {
  const name = `waitlist_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  const admin = (statement: string) =>
    PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(
      Effect.flatMap((sql) => sql.unsafe(statement)),
      Effect.scoped,
      Effect.provide(Reactivity.layer),
      Effect.orDie
    )
  return Effect.acquireRelease(
    admin(`CREATE DATABASE "${name}"`),
    () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  ).pipe(Effect.map(() => {
    const fresh = new URL(url)
    fresh.pathname = `/${name}`
    return fresh
  }))
}

const freshPostgres = (url: string) =>
  Effect.map(freshPostgresDatabase(url), (fresh) => ({ DATABASE_URL: fresh.toString() }))

const freshPglite = Effect.acquireRelease(
  Effect.promise(() => mkdtemp(join(tmpdir(), "waitlist-pglite-"))),
  (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
).pipe(Effect.map((dir) => ({ DATA_DIR: dir })))

/**
 * Configuration naming a store of its own for one suite: a new database on `TEST_DATABASE_URL`'s
 * server, dropped afterwards, or a new PGlite data directory, removed afterwards.
 */
export const configLayer = (extra: Record<string, string> = {}) =>
  ConfigProvider.layer(
    Effect.map(
      adminUrl === undefined ? freshPglite : freshPostgres(adminUrl),
      (store: Record<string, string>) => ConfigProvider.fromUnknown({ ...store, ...extra })
    )
  )
