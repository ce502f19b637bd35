import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import * as Stream from "effect/Stream"
import { Unavailable } from "../../schema/Errors.ts"
import type { Email } from "../../schema/Waitlist.ts"
import { emailKey } from "../../schema/Waitlist.ts"
import * as Database from "../store/Database.ts"
import { DatabaseConfig } from "../store/Database.ts"
import * as Migrations from "../store/Migrations.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import type { Member } from "./Waitlist.ts"
import { retryAfter, Waitlist } from "./Waitlist.ts"

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** One address to add to the waitlist, written with whichever others arrive at the same time. */
interface Join {
  readonly email: Email
  readonly arrivedAt: number
  readonly resume: (answer: Exit.Exit<void, Unavailable>) => void
}

/**
 * The most members written by one statement, and the most statements writing members at once. Two
 * writers: one batch commits while the next gathers. More writers make smaller batches, and more
 * commits share the same two cores (measured with `npm run bench`: 2 beat 4 at both 16 and 64
 * connections, in throughput and p99).
 */
const maxBatchSize = 256
const concurrentBatches = 2

/** PostgreSQL, through whichever `SqlClient` the `Database` layer provides. */
export const layer = Layer.effect(Waitlist)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const { statementTimeout } = yield* DatabaseConfig

  const guard = yield* StoreGuard.make("waitlist", { retryAfter: retryAfter.storeFailure })
  const late = Effect.logWarning("waitlist store unavailable", "a join waited out the statement timeout").pipe(
    Effect.andThen(Effect.fail(new Unavailable({ retryAfter: retryAfter.storeFailure })))
  )

  // Concurrent joins are written together: each batch is one statement and one commit, however many
  // members it holds. A batch gathers the joins of one turn of the event loop (every request whose body
  // arrived in it), then goes out as soon as fewer than `concurrentBatches` are being written, so a
  // join waits for no timer, and under load the batches grow instead of the queue for connections.
  // Every address of a batch, new or known, is answered by the same commit: a batch cannot reveal
  // membership by its timing. A batch of known addresses only would write nothing, and its commit
  // would skip the flush to disk: every batch also writes a transactional message to the write-ahead
  // log (`pg_logical_emit_message`, a few bytes that no table keeps), so every commit is flushed alike.
  // Known rows are not updated: an update locks its row, and concurrent batches repeating a popular
  // address waited on each other's commits (docs/PERFORMANCE.md).
  const clock = yield* Clock.Clock
  const timeoutMillis = Duration.toMillis(statementTimeout)
  const runFork = Effect.runForkWith(yield* Effect.context<never>())

  const writeBatch = (joins: ReadonlyArray<Join>) => {
    // Each join is answered within the statement timeout of its arrival, waiting for a batch included;
    // the batch's oldest join, the first, has the least time left. A batch ahead of it ends by its own
    // first join's deadline, which is earlier: no join waits on more than one timeout.
    const left = joins[0]!.arrivedAt + timeoutMillis - clock.currentTimeMillisUnsafe()
    if (left <= 0) return late
    // One row per address (a statement may touch a row once), the first spelling kept; rows are locked
    // in key order, so that concurrent batches never wait on each other in a cycle.
    const members = new Map<string, Email>()
    for (const { email } of joins) {
      const key = emailKey(email)
      if (!members.has(key)) members.set(key, email)
    }
    const keys = Array.from(members.keys()).sort()
    return guard(
      sql`
      INSERT INTO waitlist_members (email_key, email)
      SELECT email_key, email FROM unnest(
        ${keys.map((key) => utf8.encode(key))}::bytea[], ${keys.map((key) => utf8.encode(members.get(key)!))}::bytea[]
      ) AS batch(email_key, email)
      WHERE pg_logical_emit_message(true, 'waitlist', '') IS NOT NULL
      ON CONFLICT (email_key) DO NOTHING`.raw,
      Duration.millis(left)
    )
  }

  // The joins waiting for a batch, in arrival order. Kept in a plain array that is replaced when a
  // batch takes it, rather than in Effect's `Request` batching: that keeps each batch's entries in
  // long-lived, pooled sets, whose discarded tables kept every join's objects (its fiber, its document)
  // alive through the young generation's collections into old space, and so a full collection every
  // two seconds under load, 8-18 ms each on the server's one core: the latency tail
  // (docs/PERFORMANCE.md, "The latency tail").
  let waiting: Array<Join> = []
  let writing = 0
  let gathering = false

  const take = () => {
    if (waiting.length <= maxBatchSize) {
      const batch = waiting
      waiting = []
      return batch
    }
    return waiting.splice(0, maxBatchSize)
  }

  const writeBatches = () => {
    gathering = false
    while (writing < concurrentBatches && waiting.length > 0) {
      const batch = take()
      writing++
      // Built inside its fiber: whatever happens, every join of the batch is answered and the writer freed.
      runFork(Effect.suspend(() => writeBatch(batch))).addObserver((exit) => {
        writing--
        const answer = Exit.asVoid(exit)
        for (const join of batch) join.resume(answer)
        if (!gathering) writeBatches()
      })
    }
  }

  // A plain function, not `Effect.fn`: every request of the waitlist runs one, and the span and call-site
  // capture of `Effect.fn` cost half as much server CPU again (bench/waitlist.ts, 64 connections: 128 →
  // 196 µs per request); `Effect.fnUntraced` would still add a generator per join.
  const join = (email: Email) =>
    Effect.callback<void, Unavailable>((resume) => {
      const entry: Join = { email, arrivedAt: clock.currentTimeMillisUnsafe(), resume }
      waiting.push(entry)
      if (!gathering) {
        gathering = true
        setImmediate(writeBatches)
      }
      // A caller that is gone before its batch leaves is not written; once written, it stays written.
      return Effect.sync(() => {
        const at = waiting.indexOf(entry)
        if (at !== -1) waiting.splice(at, 1)
      })
    })

  const count = guard(sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM waitlist_members`).pipe(
    Effect.map(([row]) => row?.n ?? 0)
  )

  const members = Stream.unwrap(guard(Effect.succeed(
    sql<{ readonly email: Uint8Array; readonly registered_at: Date }>`
      SELECT email, registered_at FROM waitlist_members ORDER BY id`.stream
  ))).pipe(
    // A failure while rows stream in is the store's as well.
    Stream.catch((error) => Stream.fromEffect(guard(Effect.fail(error)))),
    Stream.map((row): Member => ({ email: fromUtf8.decode(row.email) as Email, registeredAt: row.registered_at }))
  )

  const ready = guard(sql`SELECT 1`).pipe(Effect.asVoid)

  return { join, count, members, ready }
}))

/**
 * The SQL waitlist on its migrated store, with the store's `SqlClient`: as the service opens it
 * (`Database.layer`, the default) or as a command borrows it (`Database.layerCommand`).
 */
export const layerMigrated = (database: typeof Database.layer = Database.layer) =>
  layer.pipe(Layer.provide(Migrations.layer), Layer.provideMerge(database))
