/**
 * What a round trip to PostgreSQL leaves in V8's old space, with nothing else in the process: the
 * waitlist's batch statement (8 new addresses), two writers one batch after another, on one core, with
 * the V8 settings of `npm start`, for BENCH_SECONDS (8). Three clients, each in a child process of its own:
 *
 * - `pg`: the `pg` package, two async loops;
 * - `pg, Effect`: the same queries, each an `Effect.promise`, the writers `Effect.forever`;
 * - `@effect/sql-pg, Effect`: the service's client.
 *
 * Each child runs with `--trace-gc-nvp`; the bench sums the bytes promoted by the scavenges per batch
 * and counts the full collections after the first second (before it, start-up's). A full collection
 * under load costs the service tens of ms of marking on its one core (docs/PERFORMANCE.md, "What is left").
 *
 *   node bench/sql-promotion.ts
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as SqlClient from "effect/sql/SqlClient"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { admin, databaseUrl } from "./Database.ts"
import { pinned } from "./Launch.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 8)
const clients = ["pg", "pg, Effect", "@effect/sql-pg, Effect"] as const
type Client = typeof clients[number]

const create = "CREATE TABLE members (email_key bytea PRIMARY KEY, email bytea NOT NULL)"
const insert = "INSERT INTO members (email_key, email) SELECT * FROM unnest($1::bytea[], $2::bytea[]) "
  + "ON CONFLICT (email_key) DO NOTHING"

/** Writes batches with `client` for `seconds`; prints how many. */
const child = async (client: Client) => {
  const url = process.env.DATABASE_URL!
  let written = 0
  const batch = () => {
    const emails = Array.from({ length: 8 }, () => Buffer.from(`promotion.${written++}@example.com`))
    return [emails, emails]
  }
  if (client === "pg") {
    const pool = new pg.Pool({ connectionString: url, max: 2 })
    await pool.query(create)
    const end = Date.now() + seconds * 1000
    const writer = async () => {
      while (Date.now() < end) await pool.query(insert, batch())
    }
    await Promise.all([writer(), writer()])
    await pool.end()
  } else {
    const writers = <E, R>(write: Effect.Effect<unknown, E, R>) => {
      const writer = Effect.forever(write)
      return Effect.all([writer, writer], { concurrency: 2 }).pipe(
        Effect.timeout(`${seconds} seconds`),
        Effect.ignore
      )
    }
    if (client === "pg, Effect") {
      const pool = new pg.Pool({ connectionString: url, max: 2 })
      await pool.query(create)
      await Effect.runPromise(writers(Effect.promise(() => pool.query(insert, batch()))))
      await pool.end()
    } else {
      const program = Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql.unsafe(create).raw
        yield* writers(Effect.suspend(() => sql.unsafe(insert, batch()).raw))
      })
      await Effect.runPromise(
        program.pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 2 })), Effect.orDie)
      )
    }
  }
  process.stdout.write(`batches=${written / 8}\n`)
}

/** Runs `client` in a child pinned to CPU 0, on a new database, and reads its collector's trace. */
const measure = async (client: Client) => {
  const name = `bench_promotion_${Date.now().toString(36)}`
  await admin(`CREATE DATABASE ${name}`)
  try {
    const [command, args] = pinned(0, process.execPath, [
      "--no-allocation-site-pretenuring",
      "--max-semi-space-size=8",
      "--heap-growing-percent=20",
      "--trace-gc-nvp",
      fileURLToPath(import.meta.url),
      client
    ])
    const lines = execFileSync(command, args, {
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: databaseUrl(name) },
      maxBuffer: 1 << 28
    }).split("\n")
    const number = (line: string, pattern: RegExp) => Number(pattern.exec(line)?.[1] ?? 0)
    const batches = lines.reduce((found, line) => found + number(line, /^batches=(\d+)/), 0)
    const promoted = lines
      .filter((line) => line.includes(" gc=s "))
      .reduce((sum, line) => sum + number(line, /\bpromoted=(\d+)/), 0)
    const fullUnderLoad = lines.filter((line) => line.includes(" gc=mc ") && number(line, /(\d+) ms:/) > 1000).length
    return { client, batches, promotedPerBatch: promoted / batches, fullUnderLoad }
  } finally {
    await admin(`DROP DATABASE ${name}`)
  }
}

const client = process.argv[2]
if (client !== undefined) {
  await child(client as Client)
} else {
  process.stdout.write(`${seconds} s of batches of 8 new addresses, two writers, one core (CPU 0)\n`)
  for (const each of clients) {
    const result = await measure(each)
    process.stdout.write(
      `  ${result.client.padEnd(24)} ${String(result.batches).padStart(7)} batches; `
        + `promoted ${result.promotedPerBatch.toFixed(0)} bytes a batch; `
        + `full collections under load: ${result.fullUnderLoad}\n`
    )
  }
}
