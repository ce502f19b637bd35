import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import type * as Statement from "effect/sql/Statement"
import { AccountId } from "../../schema/ApiKey.ts"
import { Instant } from "../../schema/Job.ts"
import { JobId } from "../../schema/JobRef.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import * as Transaction from "../store/Transaction.ts"
import { channel, EventSignal } from "./EventSignal.ts"
import { EventsConfig, JobStore, notFound, nowIso, signalRuns } from "./JobStore.ts"
import { StoredJobRecord } from "./rules/JobRecord.ts"
import type { Change, JobRecord } from "./rules/JobRecord.ts"
import * as Revision from "./rules/Revision.ts"
import { RunQueue } from "./runner/RunQueue.ts"

const utf8 = new TextEncoder()

/** Events a transaction may append: positions are its transaction id times this, plus 0, 1, ... */
export const eventsPerTransaction = 64

/** An instant as the store reads a `timestamptz` column (a `Date`), written as the service writes instants. */
export const InstantFromDate = Schema.Date.pipe(Schema.decodeTo(
  Instant,
  SchemaTransformation.transform({ decode: (date) => date.toISOString(), encode: (instant) => new Date(instant) })
))

/** Events deleted by one statement of the prune. */
const pruneBatchSize = 1000

/** A Job's row, by its account and id; and what is read of it. */
export const JobKey = Schema.Struct({ accountId: AccountId, id: JobId })
const RecordRow = Schema.Struct({ record: StoredJobRecord })

/** The first position no reader may publish yet: every event before it is committed, for good. */
export const horizonOf = (sql: SqlClient.SqlClient) =>
  sql`(pg_snapshot_xmin(pg_current_snapshot())::text::bigint * ${eventsPerTransaction})`

/** What the statement of `write` answers: the places of the transaction's block of positions taken before. */
const BlockRow = Schema.Struct({ used: Schema.Int })

/**
 * PostgreSQL. An event's position is `xid * 64 + n`: the id of the transaction that appended it (a
 * `xid8`, kept in `job_events.xid`) and its place within it. A reader that publishes only events whose
 * transaction precedes every transaction still running (`xid < pg_snapshot_xmin(pg_current_snapshot())`,
 * that is `position < xmin * 64`) publishes a prefix that only ever grows at its end, so no event can
 * appear behind one already read. Every transaction that appends events of a Job takes that Job's row
 * lock before it writes anything (its transaction id is assigned then), so a Job's events are in the
 * order its changes committed.
 */
export const layer = Layer.effect(JobStore)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("jobs")
  const work = yield* RunQueue
  const signal = yield* EventSignal
  const retentionMillis = Duration.toMillis((yield* EventsConfig).retention)

  /** Runs the statement of `write`, which answers one row: how many places of the block are taken. */
  const taken = (statement: Statement.Statement<unknown>) =>
    SqlSchema.findOne({ Request: Schema.Void, Result: BlockRow, execute: () => statement })(undefined)

  /**
   * The Job's row (`job`, an `INSERT` or an `UPDATE` of it), the change's events and its revision's
   * snapshot, written by one statement, and on PostgreSQL the account announced by `NOTIFY` (on commit)
   * in it: a statement is a round trip to the database, and on this path each one cost more CPU than what
   * it did (docs/PERFORMANCE.md, "The writers with 1,000 streams"). The events take the next free places of
   * the transaction's block of positions (`used` of them are taken already); the embedded store is told
   * directly, after the commit.
   */
  const write = (job: Statement.Fragment, record: JobRecord, change: Change) =>
    Effect.gen(function*() {
      const events = JSON.stringify(
        change.events.map((event, i) => ({ i, type: event.type, data: JSON.stringify(event.data) }))
      )
      const last = change.events.length - 1
      const view = JSON.stringify(Revision.toView(record))
      const row = yield* taken(sql`
        WITH job AS (${job}),
        block AS (
          SELECT x.xid * ${eventsPerTransaction} AS start, (
            SELECT count(*)::int FROM job_events
            WHERE position >= x.xid * ${eventsPerTransaction} AND position < (x.xid + 1) * ${eventsPerTransaction}
          ) AS used
          FROM (SELECT pg_current_xact_id()::text::bigint AS xid) x
        ),
        appended AS (
          INSERT INTO job_events (position, account_id, job_id, job_revision, type, data, occurred_at)
          SELECT block.start + block.used + e.i, ${record.accountId}, ${record.id}, ${record.revision}, e.type, e.data,
            ${new Date(record.updatedAt)}
          FROM block, json_to_recordset(${events}::json) AS e(i int, type text, data text)
        ),
        revised AS (
          INSERT INTO job_revisions (job_id, revision, snapshot, first_position, last_position)
          SELECT ${record.id}, ${record.revision}, ${view}, block.start + block.used, block.start + block.used + ${last}
          FROM block
          ON CONFLICT (job_id, revision) DO UPDATE SET snapshot = EXCLUDED.snapshot, last_position = EXCLUDED.last_position
        )
        SELECT block.used${
        signal.viaNotify ? sql`, pg_notify(${channel}, ${record.accountId})::text AS notified` : sql``
      } FROM block`)
      // Rolls the transaction back: its positions would run into the next transaction id's.
      if (row.used + change.events.length > eventsPerTransaction) {
        return yield* Effect.die(new Error("too many events in one transaction"))
      }
      if (!signal.viaNotify) yield* sql.afterCommit(signal.wake(record.accountId))
    })

  /** What the change stores besides the Job: a proposal's bytes, once; a decision; an approval consumed. */
  const writeParts = (record: JobRecord, change: Change) =>
    Effect.gen(function*() {
      if (change.proposal !== undefined) {
        yield* sql`
          INSERT INTO job_proposals (job_id, hash, bytes, created_at)
          VALUES (${record.id}, ${change.proposal.hash}, ${utf8.encode(change.proposal.bytes)},
            ${new Date(change.proposal.createdAt)})
          ON CONFLICT (job_id, hash) DO NOTHING`
      }
      if (change.approval !== undefined) {
        const approval = change.approval
        yield* sql`
          INSERT INTO job_approvals (id, job_id, job_revision, proposal_hash, decision, reason, decided_by, created_at)
          VALUES (${approval.id}, ${approval.jobId}, ${approval.jobRevision}, ${approval.proposalHash},
            ${approval.decision}, ${approval.reason}, ${approval.decidedBy}, ${new Date(approval.createdAt)})`
      }
      if (change.consumes !== undefined) {
        yield* sql`
          UPDATE job_approvals SET consumed_at = ${new Date(record.updatedAt)}
          WHERE job_id = ${record.id} AND proposal_hash = ${change.consumes} AND consumed_at IS NULL`
      }
    })

  const columns = (record: JobRecord) => {
    const expiresAt = Revision.openUntil(record)
    return {
      needsRun: Revision.runsOf(record).length > 0,
      expiresAt: expiresAt === null ? null : new Date(expiresAt)
    }
  }

  const inTransaction = Transaction.joined(sql)

  const selectRecord = SqlSchema.findOneOption({
    Request: JobKey,
    Result: RecordRow,
    execute: ({ accountId, id }) => sql`SELECT record FROM jobs WHERE id = ${id} AND account_id = ${accountId}`
  })

  const lockRecord = SqlSchema.findOneOption({
    Request: JobKey,
    Result: RecordRow,
    execute: ({ accountId, id }) =>
      sql`SELECT record FROM jobs WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`
  })

  const afterCommit = (record: JobRecord) => sql.afterCommit(signalRuns(work, record))

  const insert = (change: Change) =>
    guard(inTransaction(Effect.gen(function*() {
      const { record } = change
      const { expiresAt, needsRun } = columns(record)
      yield* write(
        sql`
          INSERT INTO jobs (id, account_id, revision, status, record, created_at, updated_at, needs_run, proposal_expires_at)
          VALUES (${record.id}, ${record.accountId}, ${record.revision}, ${record.status}, ${JSON.stringify(record)},
            ${new Date(record.createdAt)}, ${new Date(record.updatedAt)}, ${needsRun}, ${expiresAt})`,
        record,
        change
      )
      yield* afterCommit(record)
    })))

  const mutate = <E>(
    accountId: AccountId,
    id: JobId,
    decide: (record: JobRecord, now: string) => Result.Result<Change, E>
  ) =>
    guard(Effect.gen(function*() {
      const now = yield* nowIso
      return yield* inTransaction(Effect.gen(function*() {
        const row = yield* lockRecord({ accountId, id })
        if (Option.isNone(row)) return yield* Effect.fail(notFound(id))
        const change = yield* Effect.fromResult(decide(row.value.record, now))
        const { record } = change
        if (change.events.length > 0) {
          const { expiresAt, needsRun } = columns(record)
          yield* write(
            sql`
              UPDATE jobs SET revision = ${record.revision}, status = ${record.status}, record = ${
              JSON.stringify(record)
            },
                updated_at = ${new Date(record.updatedAt)}, needs_run = ${needsRun}, proposal_expires_at = ${expiresAt}
              WHERE id = ${id}`,
            record,
            change
          )
          yield* writeParts(record, change)
          yield* afterCommit(record)
        }
        return change
      }))
    }))

  const find = (accountId: AccountId, id: JobId) =>
    guard(selectRecord({ accountId, id }))
      .pipe(
        Effect.flatMap((row) =>
          Option.isNone(row)
            ? Effect.fail(notFound(id))
            : Effect.succeed(row.value.record)
        )
      )

  const horizon = horizonOf(sql)

  /**
   * Deletes one batch of events that occurred before `cutoff`, in a statement of its own; answers how
   * many. The cutoff is the service's clock less the retention: the clock that wrote `occurred_at`.
   */
  const deleteBatch = SqlSchema.findOne({
    Request: Schema.Date,
    Result: Schema.Struct({ pruned: Schema.Int }),
    execute: (cutoff) =>
      sql`
    WITH gone AS (
      DELETE FROM job_events WHERE position IN (
        SELECT position FROM job_events
        WHERE occurred_at < ${cutoff}
          AND position < ${horizon}
        ORDER BY occurred_at LIMIT ${pruneBatchSize}
      )
      RETURNING account_id, position
    ), through AS (
      INSERT INTO job_event_retention (account_id, pruned_through)
      SELECT account_id, max(position) FROM gone GROUP BY account_id
      ON CONFLICT (account_id) DO UPDATE
        SET pruned_through = GREATEST(job_event_retention.pruned_through, EXCLUDED.pruned_through)
    )
    SELECT count(*)::int AS pruned FROM gone`
  })
  const pruneBatch = (cutoff: Date) => Effect.map(deleteBatch(cutoff), (row) => row.pruned)

  // In small batches, each a short transaction: a long one would hold publication back for every account.
  const pruneEvents = Effect.gen(function*() {
    const cutoff = new Date((yield* Clock.currentTimeMillis) - retentionMillis)
    let total = 0
    while (true) {
      const pruned = yield* guard(pruneBatch(cutoff))
      total += pruned
      if (pruned < pruneBatchSize) return total
    }
  })

  const selectPending = SqlSchema.findAll({
    Request: Schema.Void,
    Result: RecordRow,
    execute: () =>
      sql`
      SELECT record FROM jobs WHERE needs_run ORDER BY seq LIMIT 100`
  })

  const pendingRuns = guard(selectPending(undefined)).pipe(
    Effect.map((rows) => rows.flatMap((row) => Revision.runsOf(row.record)))
  )

  return { insert, mutate, find, pendingRuns, pruneEvents }
}))
