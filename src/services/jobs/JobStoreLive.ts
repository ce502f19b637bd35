import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Result from "effect/Result"
import * as SqlClient from "effect/sql/SqlClient"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { JobId } from "../../schema/JobRef.ts"
import { channel, EventSignal } from "../events/EventSignal.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import * as JobLifecycle from "./JobLifecycle.ts"
import { fromStored } from "./JobRecord.ts"
import type { Change, JobRecord } from "./JobRecord.ts"
import { eventsPerTransaction, JobStore, notFound, nowIso, signalRuns } from "./JobStore.ts"
import { JobWork } from "./JobWork.ts"

const utf8 = new TextEncoder()

/**
 * PostgreSQL. An event's position is `xid * 64 + n`: the id of the transaction that appended it (a
 * `xid8`, kept in `job_events.xid`) and its place within it. A reader that publishes only events whose
 * transaction precedes every transaction still running (`xid < pg_snapshot_xmin(pg_current_snapshot())`,
 * that is `position < xmin * 64`) publishes a prefix that only ever grows at its end, so no event can
 * appear behind one already read. Every transaction that appends events of a Job takes that Job's row
 * lock before it writes anything (its transaction id is assigned then), so a Job's events are in the
 * order its changes committed.
 */
export const layerLive = Layer.effect(JobStore)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("jobs")
  const work = yield* JobWork
  const signal = yield* EventSignal

  // Announced on commit: by NOTIFY to every process on PostgreSQL, directly to this one on the embedded store.
  const announce = (accountId: AccountId) =>
    signal.viaNotify
      ? Effect.asVoid(sql`SELECT pg_notify(${channel}, ${accountId})`)
      : sql.afterCommit(signal.wake(accountId))

  const appendEvents = (record: JobRecord, change: Change) =>
    Effect.gen(function*() {
      const [row] = yield* sql<{ readonly xid: string; readonly used: number }>`
        SELECT x.xid::text AS xid, (
          SELECT count(*)::int FROM job_events
          WHERE position >= x.xid::text::bigint * ${eventsPerTransaction}
            AND position < (x.xid::text::bigint + 1) * ${eventsPerTransaction}
        ) AS used
        FROM (SELECT pg_current_xact_id() AS xid) x`
      const first = Number(BigInt(row!.xid) * BigInt(eventsPerTransaction)) + row!.used
      if (row!.used + change.events.length > eventsPerTransaction) {
        return yield* Effect.die(new Error("too many events in one transaction"))
      }
      const rows = change.events.map((event, i) => ({
        position: first + i,
        account_id: record.accountId,
        job_id: record.id,
        job_revision: record.revision,
        type: event.type,
        data: JSON.stringify(event.data),
        occurred_at: new Date(record.updatedAt)
      }))
      yield* sql`INSERT INTO job_events ${sql.insert(rows as unknown as [Record<string, unknown>])}`
      const view = JSON.stringify(JobLifecycle.toView(record))
      yield* sql`
        INSERT INTO job_revisions (job_id, revision, snapshot, first_position, last_position)
        VALUES (${record.id}, ${record.revision}, ${view}, ${first}, ${first + rows.length - 1})
        ON CONFLICT (job_id, revision) DO UPDATE SET snapshot = EXCLUDED.snapshot, last_position = EXCLUDED.last_position`
      yield* announce(record.accountId)
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
    const expiresAt = JobLifecycle.openUntil(record)
    return {
      needsRun: JobLifecycle.runsOf(record).length > 0,
      expiresAt: expiresAt === null ? null : new Date(expiresAt)
    }
  }

  const afterCommit = (record: JobRecord) => sql.afterCommit(signalRuns(work, record))

  const insert = (change: Change) =>
    guard(sql.withTransaction(Effect.gen(function*() {
      const { record } = change
      const { expiresAt, needsRun } = columns(record)
      yield* sql`
        INSERT INTO jobs (id, account_id, revision, status, record, created_at, updated_at, needs_run, proposal_expires_at)
        VALUES (${record.id}, ${record.accountId}, ${record.revision}, ${record.status}, ${JSON.stringify(record)},
          ${new Date(record.createdAt)}, ${new Date(record.updatedAt)}, ${needsRun}, ${expiresAt})`
      yield* appendEvents(record, change)
      yield* afterCommit(record)
    })))

  const mutate = <E>(
    accountId: AccountId,
    id: JobId,
    decide: (record: JobRecord, now: string) => Result.Result<Change, E>
  ) =>
    guard(Effect.gen(function*() {
      const now = yield* nowIso
      return yield* sql.withTransaction(Effect.gen(function*() {
        const [row] = yield* sql<{ readonly record: string }>`
          SELECT record FROM jobs WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`
        if (row === undefined) return yield* Effect.fail(notFound(id))
        const change = yield* Effect.fromResult(decide(fromStored(JSON.parse(row.record)), now))
        const { record } = change
        if (change.events.length > 0) {
          const { expiresAt, needsRun } = columns(record)
          yield* sql`
            UPDATE jobs SET revision = ${record.revision}, status = ${record.status}, record = ${
            JSON.stringify(record)
          },
              updated_at = ${new Date(record.updatedAt)}, needs_run = ${needsRun}, proposal_expires_at = ${expiresAt}
            WHERE id = ${id}`
          yield* appendEvents(record, change)
          yield* writeParts(record, change)
          yield* afterCommit(record)
        }
        return change
      }))
    }))

  const find = (accountId: AccountId, id: JobId) =>
    guard(sql<{ readonly record: string }>`SELECT record FROM jobs WHERE id = ${id} AND account_id = ${accountId}`)
      .pipe(
        Effect.flatMap(([row]) =>
          row === undefined
            ? Effect.fail(notFound(id))
            : Effect.succeed(fromStored(JSON.parse(row.record)))
        )
      )

  return { insert, mutate, find }
}))
