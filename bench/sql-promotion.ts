/**
 * What a round trip to PostgreSQL leaves in V8's old space, with nothing else in the process: a statement
 * like the waitlist's batch (8 new addresses, two `bytea` arrays), two writers one batch after another, on
 * one core, with Node's flags from `npm start`, for BENCH_SECONDS (8). Three clients, each in a child
 * process of its own:
 *
 * - `pg`: the `pg` package, two async loops;
 * - `pg, Effect`: the same queries, each an `Effect.promise`, the writers `Effect.forever`;
 * - `@effect/sql-pg, Effect`: the service's client.
 *
 * Each child runs with `--trace-gc-nvp` and prints a mark when its writers begin; the bench sums the
 * bytes promoted by the scavenges after the mark, per batch, and counts the full collections after it
 * (before it: start-up, its modules and connections). A full collection under load costs the service
 * tens of ms of marking on its one core (docs/PERFORMANCE.md, "What is left").
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
import { scratchDatabase } from "./Database.ts"
import { pinned, pinning, startScript } from "./Launch.ts"

const root = fileURLToPath(new URL("..", import.meta.url))
const seconds = Number(process.env.BENCH_SECONDS ?? 8)
/** What the children's lines say when their writers begin. */
const loadBegins = "load begins"
const clients = ["pg", "pg, Effect", "@effect/sql-pg, Effect"] as const
type Client = typeof clients[number]

const create = "CREATE TABLE members (email_key bytea PRIMARY KEY, email bytea NOT NULL)"
const insert = "INSERT INTO members (email_key, email) SELECT * FROM unnest($1::bytea[], $2::bytea[]) "
  + "ON CONFLICT (email_key) DO NOTHING"

/** Writes batches with `client` for `seconds`, after printing `loadBegins`; prints how many. */
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
    process.stdout.write(`${loadBegins}\n`)
    const end = Date.now() + seconds * 1000
    const writer = async () => {
      while (Date.now() < end) await pool.query(insert, batch())
    }
    await Promise.all([writer(), writer()])
    await pool.end()
  } else {
    const writers = <E, R>(write: Effect.Effect<unknown, E, R>) => {
      const writer = Effect.forever(write)
      return Effect.sync(() => process.stdout.write(`${loadBegins}\n`)).pipe(
        Effect.andThen(Effect.all([writer, writer], { concurrency: 2 })),
        Effect.timeoutOption(`${seconds} seconds`)
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

/** Node's flags from `npm start`, without the service's entry point. */
const nodeFlags = startScript(root).args.filter((arg) => arg.startsWith("--"))

/** Runs `client` in a child pinned to CPU 0, on a new database, and reads its collector's trace. */
const measure = async (client: Client) => {
  const database = scratchDatabase("promotion")
  await database.create()
  try {
    const [command, args] = pinned(0, process.execPath, [
      ...nodeFlags,
      "--trace-gc-nvp",
      fileURLToPath(import.meta.url),
      client
    ])
    const lines = execFileSync(command, args, {
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: database.url },
      maxBuffer: 1 << 28
    }).split("\n")
    const begins = lines.indexOf(loadBegins)
    if (begins === -1) throw new Error(`${client}: the child never began its load`)
    const load = lines.slice(begins)
    const number = (line: string, pattern: RegExp) => Number(pattern.exec(line)?.[1] ?? 0)
    const batches = load.reduce((found, line) => found + number(line, /^batches=(\d+)/), 0)
    const promoted = load
      .filter((line) => line.includes(" gc=s "))
      .reduce((sum, line) => sum + number(line, /\bpromoted=(\d+)/), 0)
    const fullUnderLoad = load.filter((line) => line.includes(" gc=mc ")).length
    return { client, batches, promotedPerBatch: promoted / batches, fullUnderLoad }
  } finally {
    // Forced: a child that failed may leave a connection behind, which would hide its error.
    await database.drop()
  }
}

const client = process.argv[2]
if (client !== undefined) {
  await child(client as Client)
} else {
  process.stdout.write(
    `${seconds} s of batches of 8 new addresses, two writers; ${pinning("each client on CPU 0")}; `
      + `node ${nodeFlags.join(" ")}\n`
  )
  for (const each of clients) {
    const result = await measure(each)
    process.stdout.write(
      `  ${result.client.padEnd(24)} ${String(result.batches).padStart(7)} batches; `
        + `promoted ${result.promotedPerBatch.toFixed(0)} bytes a batch; `
        + `full collections under load: ${result.fullUnderLoad}\n`
    )
  }
}
