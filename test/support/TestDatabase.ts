import { PgClient } from "@effect/sql-pg"
import { PGlite } from "@electric-sql/pglite"
import { ConfigProvider, Context, Effect, Layer, Redacted } from "effect"
import type { Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { cpSync, mkdtempSync } from "node:fs"
import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inject } from "vitest"
import * as PgliteSessions from "../../src/services/store/PgliteSessions.ts"

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

/**
 * A new embedded data directory: a copy of the run's template (test/support/PgliteTemplate.ts) where
 * there is one, so that the store skips PGlite's `initdb`; otherwise empty, and the service creates it.
 */
export const pgliteDataDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const template = inject("pgliteTemplate") as string | undefined
  if (template !== undefined) cpSync(template, dir, { recursive: true })
  return dir
}

/** A data directory as `pgliteDataDir` makes one, removed with the scope. */
const scopedPgliteDataDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => pgliteDataDir(prefix)),
    (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
  )

/**
 * A PGlite store of its own, served on a loopback port as the service serves its store to the command
 * line (`PgliteSessions`): one backend, shared by every connection made to the port. Answers the port;
 * closed and removed with the scope.
 */
export const pgliteOnPort = (prefix: string) =>
  Effect.gen(function*() {
    const dataDir = yield* scopedPgliteDataDir(prefix)
    const { port } = yield* Effect.acquireRelease(
      Effect.promise(async () => {
        const db = await PGlite.create({ dataDir })
        const sessions = PgliteSessions.make(db)
        return { db, sessions, port: await sessions.listen() }
      }),
      ({ db, sessions }) => Effect.promise(() => sessions.close().then(() => db.close()))
    )
    return port
  })

const freshPglite = scopedPgliteDataDir("waitlist-pglite-").pipe(Effect.map((dir) => ({ DATA_DIR: dir })))

/**
 * The environment naming a store of one's own: a new database on `TEST_DATABASE_URL`'s server,
 * dropped afterwards, or a new PGlite data directory, removed afterwards.
 */
export const freshStore: Effect.Effect<Record<string, string>, never, Scope.Scope> = adminUrl === undefined
  ? freshPglite
  : freshPostgres(adminUrl)

/** Configuration naming a store of its own for one suite (see `freshStore`). */
export const configLayer = (extra: Record<string, string> = {}) =>
  ConfigProvider.layer(Effect.map(freshStore, (store) => ConfigProvider.fromUnknown({ ...store, ...extra })))

/** `freshStore` as a service, for suites that also hand the store to another process. */
export class StoreEnv extends Context.Service<StoreEnv, Record<string, string>>()("test/StoreEnv") {}

/** A fresh store, both as configuration for this process's layers and as `StoreEnv`. */
export const layerWithEnv = Layer.effectContext(Effect.map(freshStore, (store) =>
  Context.make(StoreEnv, store).pipe(
    Context.add(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(store))
  )))
