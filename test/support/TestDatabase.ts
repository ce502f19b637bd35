import { PgClient } from "@effect/sql-pg"
import { ConfigProvider, Effect, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The real PostgreSQL the Live suites run against when set; otherwise they run on embedded PGlite. */
export const adminUrl = process.env.TEST_DATABASE_URL
export const kind = adminUrl === undefined ? "PGlite" : "PostgreSQL"

const freshPostgres = (url: string) => {
  const name = `waitlist_test_${process.pid}_${Math.random().toString(36).slice(2, 10)}`
  const admin = <A, E>(f: (sql: PgClient.PgClient) => Effect.Effect<A, E>) =>
    PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(
      Effect.flatMap(f),
      Effect.scoped,
      Effect.provide(Reactivity.layer)
    )
  return Effect.acquireRelease(
    admin((sql) => sql.unsafe(`CREATE DATABASE "${name}"`)).pipe(Effect.as(name)),
    () => admin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).pipe(Effect.orDie)
  ).pipe(Effect.map((name) => {
    const fresh = new URL(url)
    fresh.pathname = `/${name}`
    return { DATABASE_URL: fresh.toString() }
  }))
}

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
