import { assert, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Exit, Fiber, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtemp, rm } from "node:fs/promises"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeNodeServer } from "../src/http/Server.ts"
import * as Database from "../src/services/store/Database.ts"
import { DatabaseConfig } from "../src/services/store/Database.ts"
import * as Migrations from "../src/services/store/Migrations.ts"
import { send } from "./support/Http.ts"
import * as TestDatabase from "./support/TestDatabase.ts"
import * as WallClock from "./support/WallClock.ts"

it.live("a request that arrives before the routes are attached waits for them", () =>
  Effect.gen(function*() {
    const server = makeNodeServer()
    yield* Effect.acquireRelease(
      Effect.callback<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () => Effect.sync(() => server.close())
    )
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const early = yield* Effect.forkChild(
      send(url, { method: "GET", path: "/early" }).pipe(Effect.timeout(WallClock.patience(5_000)))
    )
    yield* Effect.sleep("200 millis")
    server.on("request", (request, response) => response.end(`late handler saw ${request.url}`))
    const answer = yield* Fiber.join(early)
    assert.strictEqual(answer.body, "late handler saw /early")
  }))

const readConfig = (env: Record<string, string>) =>
  Effect.gen(function*() {
    return yield* DatabaseConfig
  }).pipe(
    Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env)),
    Effect.exit
  )

it.effect("configuration the store cannot use stops start-up, naming the variable and not the secret", () =>
  Effect.gen(function*() {
    for (
      const [name, value] of [
        ["DATABASE_URL", "garbage"],
        ["DATABASE_URL", "mysql://user:secret@db.example/x"],
        ["DB_STATEMENT_TIMEOUT", "0 millis"],
        ["DB_CONNECT_TIMEOUT", "-5 seconds"],
        ["DB_STATEMENT_TIMEOUT", "1 hour"],
        ["DB_POOL_SIZE", "0"]
      ] as const
    ) {
      const exit = yield* readConfig({ [name]: value })
      assert.isTrue(Exit.isFailure(exit), `${name}=${value} was accepted`)
      const message = String(Exit.isFailure(exit) ? exit.cause : "")
      assert.include(message, name)
      assert.notInclude(message, "secret")
    }
    assert.isTrue(Exit.isSuccess(yield* readConfig({ DATABASE_URL: "postgresql://u:p@db.example:5432/w" })))
  }))

// On an empty directory, as `npm start` on a new machine: the one test of the default run whose store is
// created by the service's own `initdb` (the others copy the run's template, test/support/PgliteTemplate.ts).
it.effect(
  "a second service on the same embedded data directory stops, naming the directory",
  () =>
    Effect.gen(function*() {
      const dir = yield* Effect.acquireRelease(
        Effect.promise(() => mkdtemp(join(tmpdir(), "waitlist-owner-"))),
        (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
      )
      const config = Layer.succeed(ConfigProvider.ConfigProvider)(ConfigProvider.fromUnknown({ DATA_DIR: dir }))
      yield* Layer.build(Database.layer.pipe(Layer.provide(config)))
      const second = yield* Layer.build(Database.layer.pipe(Layer.provide(config))).pipe(Effect.scoped, Effect.exit)
      assert.isTrue(Exit.isFailure(second))
      const message = String(Exit.isFailure(second) ? second.cause : "")
      assert.include(message, "DATA_DIR")
      assert.include(message, "already served by process")
    }),
  120_000
)

// The service listens once the store is migrated (`Migrations.migrateOnStart`, which `src/main.ts`
// builds before the server): on a fresh store the migrations take 0.4-1 s, and the first join, which
// waits for them, took that long.
it.effect("the start-up the server waits for ends with the store migrated", () =>
  Effect.gen(function*() {
    const store = yield* TestDatabase.freshStore
    const started = yield* Layer.build(
      Migrations.migrateOnStart.pipe(
        Layer.provideMerge(Migrations.layer),
        Layer.provideMerge(Database.layer),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(store)))
      )
    )
    const sql = Context.get(started, SqlClient.SqlClient)
    const [row] = yield* sql<{ readonly name: string | null }>`SELECT to_regclass('waitlist_members')::text AS name`
    assert.strictEqual(row?.name, "waitlist_members")
  }), 120_000)
