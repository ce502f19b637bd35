import { Clock, Context, Effect, Layer, Ref, Result, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import type { Job } from "../../schema/Job.ts"
import type { JobEvent } from "../../schema/JobEvent.ts"
import type { Approval, ProposalHash } from "../../schema/Proposal.ts"
import { channel, EventSignal } from "../events/EventSignal.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import { UnknownJob } from "./JobErrors.ts"
import * as JobLifecycle from "./JobLifecycle.ts"
import { fromStored } from "./JobRecord.ts"
import type { Change, JobRecord } from "./JobRecord.ts"
import { JobWork } from "./JobWork.ts"

/**
 * The one way a Job changes, shared by `Jobs`, `Proposals` and `Approvals`: lock the Job, decide the
 * change from the Job as it is (a pure rule of `JobLifecycle` or `WorkRules`), write it with its events,
 * the revision's snapshot and whatever else the change stores (a proposal's bytes, a decision, an
 * approval consumed), all in one transaction; then, once committed, wake event readers and tell the
 * runner which runs the Job needs (`JobWork`).
 */
export class JobStore extends Context.Service<JobStore, {
  readonly insert: (change: Change) => Effect.Effect<void, Unavailable>
  readonly mutate: <E>(
    accountId: AccountId,
    id: string,
    decide: (record: JobRecord, now: string) => Result.Result<Change, E>
  ) => Effect.Effect<Change, E | UnknownJob | Unavailable>
  readonly find: (accountId: AccountId, id: string) => Effect.Effect<JobRecord, UnknownJob | Unavailable>
}>()("JobStore") {}

export const notFound = (id: string) => new UnknownJob({ message: `There is no Job ${JSON.stringify(id)}.` })

export const nowIso = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())

/** Events a transaction may append: positions are its transaction id times this, plus 0, 1, ... */
export const eventsPerTransaction = 64

const signalRuns = (work: JobWork["Service"], record: JobRecord) =>
  Effect.forEach(JobLifecycle.runsOf(record), work.notify, { discard: true })

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
    id: string,
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

  const find = (accountId: AccountId, id: string) =>
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

const utf8 = new TextEncoder()

export interface StoredRevision {
  readonly revision: number
  readonly snapshot: Job
  readonly first: number
  readonly last: number
}

/** Everything the in-memory layers of the Job family keep, in one value changed atomically. */
export interface MemoryState {
  readonly jobs: ReadonlyMap<string, { readonly record: JobRecord; readonly seq: number }>
  /** Each Job's events, and each account's, by position. */
  readonly jobEvents: ReadonlyMap<string, ReadonlyArray<JobEvent>>
  readonly accountEvents: ReadonlyMap<AccountId, ReadonlyArray<JobEvent>>
  /** Each Job's revisions, in order: the Job at the end of each (so far). */
  readonly revisions: ReadonlyMap<string, ReadonlyArray<StoredRevision>>
  readonly prunedThrough: ReadonlyMap<AccountId, number>
  /** Proposals' canonical bytes by Job and hash; decisions by id, with when they were consumed. */
  readonly proposals: ReadonlyMap<string, ReadonlyMap<ProposalHash, string>>
  readonly approvals: ReadonlyMap<string, { readonly approval: Approval; readonly consumedAt: string | null }>
  readonly seq: number
  readonly position: number
}

/**
 * The in-memory store the Test layers of `Jobs`, `Proposals` and `Approvals` share, so that one
 * behaviour suite runs unchanged on them and on PostgreSQL.
 */
export class MemoryJobs extends Context.Service<MemoryJobs, {
  readonly state: Ref.Ref<MemoryState>
}>()("MemoryJobs") {}

const write = (current: MemoryState, change: Change, seq: number): MemoryState => {
  const { record } = change
  const events = change.events.map((event, i): JobEvent => ({
    position: current.position + i + 1,
    jobId: record.id,
    jobRevision: record.revision,
    type: event.type,
    data: JSON.parse(JSON.stringify(event.data)),
    occurredAt: record.updatedAt
  }))
  const revisions = current.revisions.get(record.id) ?? []
  const previous = revisions.at(-1)
  const revision: StoredRevision = {
    revision: record.revision,
    snapshot: JobLifecycle.toView(record),
    first: previous?.revision === record.revision ? previous.first : events[0]!.position,
    last: events[events.length - 1]!.position
  }
  let proposals = current.proposals
  if (change.proposal !== undefined && !(proposals.get(record.id)?.has(change.proposal.hash) ?? false)) {
    proposals = new Map(proposals).set(
      record.id,
      new Map(proposals.get(record.id) ?? []).set(change.proposal.hash, change.proposal.bytes)
    )
  }
  let approvals = current.approvals
  if (change.approval !== undefined) {
    approvals = new Map(approvals).set(change.approval.id, { approval: change.approval, consumedAt: null })
  }
  if (change.consumes !== undefined) {
    const entry = Array.from(approvals.values()).find(({ approval }) =>
      approval.jobId === record.id && approval.proposalHash === change.consumes
    )
    if (entry !== undefined && entry.consumedAt === null) {
      approvals = new Map(approvals).set(entry.approval.id, { ...entry, consumedAt: record.updatedAt })
    }
  }
  return {
    ...current,
    jobs: new Map(current.jobs).set(record.id, { record, seq }),
    jobEvents: new Map(current.jobEvents).set(record.id, [...(current.jobEvents.get(record.id) ?? []), ...events]),
    accountEvents: new Map(current.accountEvents).set(record.accountId, [
      ...(current.accountEvents.get(record.accountId) ?? []),
      ...events
    ]),
    revisions: new Map(current.revisions).set(
      record.id,
      revisions.length > 0 && revisions[revisions.length - 1]!.revision === record.revision
        ? [...revisions.slice(0, -1), revision]
        : [...revisions, revision]
    ),
    proposals,
    approvals,
    seq: Math.max(current.seq, seq),
    position: current.position + events.length
  }
}

export const openUntilOf = JobLifecycle.openUntil

export const findIn = (current: MemoryState, accountId: AccountId, id: string) => {
  const entry = current.jobs.get(id)
  return entry === undefined || entry.record.accountId !== accountId ? undefined : entry
}

/** In memory, with the semantics of `layerLive`: one atomic update per change, then the same signals. */
export const layerTest = Layer.effectContext(Effect.gen(function*() {
  const work = yield* JobWork
  const signal = yield* EventSignal
  const state = yield* Ref.make<MemoryState>({
    jobs: new Map(),
    jobEvents: new Map(),
    accountEvents: new Map(),
    revisions: new Map(),
    prunedThrough: new Map(),
    proposals: new Map(),
    approvals: new Map(),
    seq: 0,
    position: 0
  })
  // Changes apply one at a time, as PostgreSQL's row lock orders them; signals follow, outside it.
  const lock = yield* Semaphore.make(1)

  const notify = (record: JobRecord) => Effect.andThen(signal.wake(record.accountId), signalRuns(work, record))

  const store = JobStore.of({
    insert: (change) =>
      Effect.andThen(
        Ref.update(state, (current) => write(current, change, current.seq + 1)),
        notify(change.record)
      ),
    mutate: <E>(
      accountId: AccountId,
      id: string,
      decide: (record: JobRecord, now: string) => Result.Result<Change, E>
    ) =>
      Effect.gen(function*() {
        const now = yield* nowIso
        const change = yield* Ref.modify(
          state,
          (current): readonly [Result.Result<Change, E | UnknownJob>, MemoryState] => {
            const entry = findIn(current, accountId, id)
            if (entry === undefined) return [Result.fail(notFound(id)), current]
            const decided = decide(entry.record, now)
            if (Result.isFailure(decided) || decided.success.events.length === 0) return [decided, current]
            return [decided, write(current, decided.success, entry.seq)]
          }
        ).pipe(lock.withPermits(1), Effect.flatMap(Effect.fromResult))
        if (change.events.length > 0) yield* notify(change.record)
        return change
      }),
    find: (accountId, id) =>
      Effect.flatMap(Ref.get(state), (current) => {
        const entry = findIn(current, accountId, id)
        return entry === undefined ? Effect.fail(notFound(id)) : Effect.succeed(entry.record)
      })
  })
  return Context.make(JobStore, store).pipe(Context.add(MemoryJobs, { state }))
}))
