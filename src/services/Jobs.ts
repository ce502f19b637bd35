import { Clock, Context, DateTime, Effect, Layer, Option, Ref, Result } from "effect"
import { SqlClient } from "effect/sql"
import { InvalidRequest, NotFound } from "../schema/ApiErrors.ts"
import type { InvalidState, RevisionMismatch } from "../schema/ApiErrors.ts"
import type { AccountId } from "../schema/ApiKey.ts"
import type { Unavailable } from "../schema/Errors.ts"
import type {
  AnswerQuestionsRequest,
  ChangeConstraintsRequest,
  CreateJobRequest,
  Job,
  JobId,
  JobPage,
  JobStatus
} from "../schema/Job.ts"
import type { Interpretation, InterpretInput } from "./Interpreter.ts"
import * as JobLifecycle from "./JobLifecycle.ts"
import type { Change, EventType, JobRecord } from "./JobLifecycle.ts"
import type { JobChange, JobRef } from "./JobWork.ts"
import { JobWork, movesWork } from "./JobWork.ts"
import * as StoreGuard from "./StoreGuard.ts"

/** An event as stored (jobs.md, "Events and views"). */
export interface JobEvent {
  readonly position: number
  readonly jobId: JobId
  readonly jobRevision: number
  readonly type: EventType
  readonly data: unknown
  readonly occurredAt: string
}

export interface ListOptions {
  readonly status?: JobStatus | undefined
  /** 1 to 100. */
  readonly limit: number
  /** A `nextCursor` this service gave. */
  readonly cursor?: string | undefined
}

/**
 * An account's Jobs. Every change appends its events in the same transaction as the change, and
 * keeps the Job as it stands at the end of each revision (a snapshot per revision). A Job of another
 * account is `NotFound`. Once a change that leaves a Job `interpreting` or `cancelled` has committed,
 * `JobWork` is told.
 */
export class Jobs extends Context.Service<Jobs, {
  readonly create: (accountId: AccountId, input: CreateJobRequest) => Effect.Effect<Job, Unavailable>
  readonly get: (accountId: AccountId, id: string) => Effect.Effect<Job, NotFound | Unavailable>
  /** The Job at the end of `revision` (after its last event so far). */
  readonly getRevision: (
    accountId: AccountId,
    id: string,
    revision: number
  ) => Effect.Effect<Job, NotFound | Unavailable>
  /** Newest first. */
  readonly list: (accountId: AccountId, options: ListOptions) => Effect.Effect<JobPage, InvalidRequest | Unavailable>
  readonly changeConstraints: (
    accountId: AccountId,
    id: string,
    input: ChangeConstraintsRequest
  ) => Effect.Effect<Job, NotFound | InvalidState | RevisionMismatch | Unavailable>
  readonly answer: (
    accountId: AccountId,
    id: string,
    input: AnswerQuestionsRequest
  ) => Effect.Effect<Job, NotFound | InvalidState | InvalidRequest | RevisionMismatch | Unavailable>
  readonly cancel: (accountId: AccountId, id: string) => Effect.Effect<Job, NotFound | InvalidState | Unavailable>
  /** The Job's events that can no longer be overtaken by a concurrent commit, by position. */
  readonly events: (accountId: AccountId, id: string) => Effect.Effect<ReadonlyArray<JobEvent>, NotFound | Unavailable>
  /** Jobs waiting for their interpretation, oldest first (at most 100). */
  readonly awaitingInterpretation: Effect.Effect<ReadonlyArray<JobRef>, Unavailable>
  /** What to interpret for `ref`, while the Job is still interpreting that revision. */
  readonly interpretationInput: (ref: JobRef) => Effect.Effect<Option.Option<InterpretInput>, Unavailable>
  /** Applies an interpretation of `ref`; false when the Job has moved on (nothing changes then). */
  readonly recordInterpretation: (ref: JobRef, interpretation: Interpretation) => Effect.Effect<boolean, Unavailable>
}>()("Jobs") {}

export const maxListLimit = 100

const isNotFound = (error: unknown): error is NotFound => error instanceof NotFound

const notFound = (id: string) => new NotFound({ message: `There is no Job ${JSON.stringify(id)}.` })
const badCursor = new InvalidRequest({ message: "cursor is not one this service gave; start again without it." })

/** Cursors are opaque to callers: the position in the list, in base64url. */
const encodeCursor = (seq: number) => Buffer.from(JSON.stringify({ before: seq })).toString("base64url")
const decodeCursor = (cursor: string): Result.Result<number, InvalidRequest> => {
  try {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return Result.fail(badCursor)
    const { before } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
    return Number.isSafeInteger(before) && before > 0 ? Result.succeed(before) : Result.fail(badCursor)
  } catch {
    return Result.fail(badCursor)
  }
}

const nowIso = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis).toISOString())

const toInterpretInput = (record: JobRecord): InterpretInput => ({
  ...JobLifecycle.interpretInput(record),
  createdAt: DateTime.makeUnsafe(record.createdAt)
})

const changeOf = (record: JobRecord): JobChange => ({
  accountId: record.accountId,
  jobId: record.id,
  revision: record.revision,
  status: record.status
})

/** Events a transaction may append: positions are its transaction id times this, plus 0, 1, ... */
const eventsPerTransaction = 64

/**
 * PostgreSQL. An event's position is `xid * 64 + n`: the id of the transaction that appended it (a
 * `xid8`, kept in `job_events.xid`) and its place within it. A reader that publishes only events whose
 * transaction precedes every transaction still running (`xid < pg_snapshot_xmin(pg_current_snapshot())`)
 * publishes a prefix that only ever grows at its end, so no event can appear behind one already read.
 * Every transaction that appends events of a Job takes that Job's row lock before it writes anything
 * (its transaction id is assigned then), so a Job's events are in the order its changes committed.
 */
export const layerLive = Layer.effect(Jobs)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("jobs")
  const work = yield* JobWork

  const parse = (text: string) => JSON.parse(text) as JobRecord

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
    })

  const notifyAfterCommit = (record: JobRecord) =>
    movesWork(record.status) ? sql.afterCommit(work.notify(changeOf(record))) : Effect.void

  const create = (accountId: AccountId, input: CreateJobRequest) =>
    guard(Effect.gen(function*() {
      const change = JobLifecycle.create(JobLifecycle.newJobId(), accountId, input, yield* nowIso)
      const { record } = change
      return yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`
          INSERT INTO jobs (id, account_id, revision, status, record, created_at, updated_at)
          VALUES (${record.id}, ${accountId}, ${record.revision}, ${record.status}, ${JSON.stringify(record)},
            ${new Date(record.createdAt)}, ${new Date(record.updatedAt)})`
        yield* appendEvents(record, change)
        yield* notifyAfterCommit(record)
        return JobLifecycle.toView(record)
      }))
    }))

  const find = (accountId: AccountId, id: string) =>
    sql<{ readonly record: string }>`SELECT record FROM jobs WHERE id = ${id} AND account_id = ${accountId}`.pipe(
      Effect.flatMap(([row]) => row === undefined ? Effect.fail(notFound(id)) : Effect.succeed(parse(row.record)))
    )

  /** Locks the Job, applies `decide`, and writes the change with its events, all in one transaction. */
  const mutate = <E>(
    accountId: AccountId,
    id: string,
    decide: (record: JobRecord, now: string) => Result.Result<Change, E>
  ) =>
    Effect.gen(function*() {
      const now = yield* nowIso
      return yield* sql.withTransaction(Effect.gen(function*() {
        const [row] = yield* sql<{ readonly record: string }>`
          SELECT record FROM jobs WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`
        if (row === undefined) return yield* Effect.fail(notFound(id))
        const change = yield* Effect.fromResult(decide(parse(row.record), now))
        const { record } = change
        if (change.events.length > 0) {
          yield* sql`
            UPDATE jobs SET revision = ${record.revision}, status = ${record.status}, record = ${
            JSON.stringify(record)
          },
              updated_at = ${new Date(record.updatedAt)}
            WHERE id = ${id}`
          yield* appendEvents(record, change)
          yield* notifyAfterCommit(record)
        }
        return change
      }))
    })

  const view = <E>(effect: Effect.Effect<Change, E>) =>
    Effect.map(effect, (change) => JobLifecycle.toView(change.record))

  return {
    create,
    get: (accountId, id) => guard(Effect.map(find(accountId, id), JobLifecycle.toView)),
    getRevision: (accountId, id, revision) =>
      guard(sql<{ readonly snapshot: string }>`
        SELECT r.snapshot FROM job_revisions r JOIN jobs j ON j.id = r.job_id
        WHERE r.job_id = ${id} AND j.account_id = ${accountId} AND r.revision = ${revision}`).pipe(
        Effect.flatMap(([row]) =>
          row === undefined ? Effect.fail(notFound(id)) : Effect.succeed(JSON.parse(row.snapshot) as Job)
        )
      ),
    list: (accountId, options) =>
      guard(Effect.gen(function*() {
        const before = options.cursor === undefined ? undefined : yield* Effect.fromResult(decodeCursor(options.cursor))
        const rows = yield* sql<{ readonly record: string; readonly seq: string }>`
          SELECT record, seq::text AS seq FROM jobs
          WHERE account_id = ${accountId}
            ${options.status === undefined ? sql`` : sql`AND status = ${options.status}`}
            ${before === undefined ? sql`` : sql`AND seq < ${before}`}
          ORDER BY jobs.seq DESC LIMIT ${options.limit + 1}`
        const page = rows.slice(0, options.limit)
        return {
          data: page.map((row) => JobLifecycle.toView(parse(row.record))),
          nextCursor: rows.length > options.limit ? encodeCursor(Number(page[page.length - 1]!.seq)) : null
        }
      })),
    changeConstraints: (accountId, id, input) =>
      guard(view(mutate(accountId, id, (record, now) => JobLifecycle.changeConstraints(record, input, now)))),
    answer: (accountId, id, input) =>
      guard(view(mutate(accountId, id, (record, now) => JobLifecycle.answer(record, input, now)))),
    cancel: (accountId, id) => guard(view(mutate(accountId, id, JobLifecycle.cancel))),
    events: (accountId, id) =>
      guard(Effect.gen(function*() {
        yield* find(accountId, id)
        const rows = yield* sql<{
          readonly position: string
          readonly job_revision: number
          readonly type: EventType
          readonly data: string
          readonly occurred_at: Date
        }>`
          SELECT position::text AS position, job_revision, type, data, occurred_at FROM job_events
          WHERE account_id = ${accountId} AND job_id = ${id} AND xid < pg_snapshot_xmin(pg_current_snapshot())
          ORDER BY job_events.position`
        return rows.map((row): JobEvent => ({
          position: Number(row.position),
          jobId: id as JobId,
          jobRevision: row.job_revision,
          type: row.type,
          data: JSON.parse(row.data),
          occurredAt: row.occurred_at.toISOString()
        }))
      })),
    awaitingInterpretation: guard(sql<{ readonly account_id: string; readonly id: string; readonly revision: number }>`
      SELECT account_id, id, revision FROM jobs WHERE status = 'interpreting' ORDER BY seq LIMIT 100`).pipe(
      Effect.map((rows) =>
        rows.map((row): JobRef => ({
          accountId: row.account_id as AccountId,
          jobId: row.id as JobId,
          revision: row.revision
        }))
      )
    ),
    interpretationInput: (ref) =>
      guard(find(ref.accountId, ref.jobId)).pipe(
        Effect.map((record) =>
          record.status === "interpreting" && record.revision === ref.revision
            ? Option.some(toInterpretInput(record))
            : Option.none()
        ),
        Effect.catchIf(isNotFound, () => Effect.succeedNone)
      ),
    recordInterpretation: (ref, interpretation) =>
      guard(mutate(
        ref.accountId,
        ref.jobId,
        (record, now) => Result.succeed(JobLifecycle.interpreted(record, ref.revision, interpretation, now))
      )).pipe(
        Effect.map((change) => change.events.length > 0),
        Effect.catchIf(isNotFound, () => Effect.succeed(false))
      )
  }
}))

interface MemoryState {
  readonly jobs: ReadonlyMap<string, { readonly record: JobRecord; readonly seq: number }>
  readonly events: ReadonlyArray<JobEvent & { readonly accountId: AccountId }>
  readonly revisions: ReadonlyMap<string, Job>
  readonly seq: number
  readonly position: number
}

/** In memory, with the semantics of `layerLive`: the same rules, one atomic update per change. */
export const layerTest = Layer.effect(Jobs)(Effect.gen(function*() {
  const work = yield* JobWork
  const state = yield* Ref.make<MemoryState>({
    jobs: new Map(),
    events: [],
    revisions: new Map(),
    seq: 0,
    position: 0
  })

  const write = (current: MemoryState, change: Change, seq: number): MemoryState => {
    const { record } = change
    const events = change.events.map((event, i): JobEvent & { readonly accountId: AccountId } => ({
      position: current.position + i + 1,
      accountId: record.accountId,
      jobId: record.id,
      jobRevision: record.revision,
      type: event.type,
      data: JSON.parse(JSON.stringify(event.data)),
      occurredAt: record.updatedAt
    }))
    return {
      jobs: new Map(current.jobs).set(record.id, { record, seq }),
      events: [...current.events, ...events],
      revisions: new Map(current.revisions).set(`${record.id} ${record.revision}`, JobLifecycle.toView(record)),
      seq: Math.max(current.seq, seq),
      position: current.position + events.length
    }
  }

  const notify = (record: JobRecord) => movesWork(record.status) ? work.notify(changeOf(record)) : Effect.void

  const find = (current: MemoryState, accountId: AccountId, id: string) => {
    const entry = current.jobs.get(id)
    return entry === undefined || entry.record.accountId !== accountId ? undefined : entry
  }

  const mutate = <E>(
    accountId: AccountId,
    id: string,
    decide: (record: JobRecord, now: string) => Result.Result<Change, E>
  ) =>
    Effect.gen(function*() {
      const now = yield* nowIso
      const change = yield* Ref.modify(
        state,
        (current): readonly [Result.Result<Change, E | NotFound>, MemoryState] => {
          const entry = find(current, accountId, id)
          if (entry === undefined) return [Result.fail(notFound(id)), current]
          const decided = decide(entry.record, now)
          if (Result.isFailure(decided) || decided.success.events.length === 0) return [decided, current]
          return [decided, write(current, decided.success, entry.seq)]
        }
      ).pipe(Effect.flatMap(Effect.fromResult))
      if (change.events.length > 0) yield* notify(change.record)
      return change
    })

  const view = <E>(effect: Effect.Effect<Change, E>) =>
    Effect.map(effect, (change) => JobLifecycle.toView(change.record))

  return {
    create: (accountId, input) =>
      Effect.gen(function*() {
        const change = JobLifecycle.create(JobLifecycle.newJobId(), accountId, input, yield* nowIso)
        yield* Ref.update(state, (current) => write(current, change, current.seq + 1))
        yield* notify(change.record)
        return JobLifecycle.toView(change.record)
      }),
    get: (accountId, id) =>
      Effect.flatMap(Ref.get(state), (current) => {
        const entry = find(current, accountId, id)
        return entry === undefined ? Effect.fail(notFound(id)) : Effect.succeed(JobLifecycle.toView(entry.record))
      }),
    getRevision: (accountId, id, revision) =>
      Effect.flatMap(Ref.get(state), (current) => {
        const snapshot = find(current, accountId, id) && current.revisions.get(`${id} ${revision}`)
        return snapshot === undefined ? Effect.fail(notFound(id)) : Effect.succeed(snapshot)
      }),
    list: (accountId, options) =>
      Effect.gen(function*() {
        const before = options.cursor === undefined ? undefined : yield* Effect.fromResult(decodeCursor(options.cursor))
        const current = yield* Ref.get(state)
        const rows = Array.from(current.jobs.values())
          .filter(({ record, seq }) =>
            record.accountId === accountId
            && (options.status === undefined || record.status === options.status)
            && (before === undefined || seq < before)
          )
          .sort((a, b) => b.seq - a.seq)
        const page = rows.slice(0, options.limit)
        return {
          data: page.map(({ record }) => JobLifecycle.toView(record)),
          nextCursor: rows.length > options.limit ? encodeCursor(page[page.length - 1]!.seq) : null
        }
      }),
    changeConstraints: (accountId, id, input) =>
      view(mutate(accountId, id, (record, now) => JobLifecycle.changeConstraints(record, input, now))),
    answer: (accountId, id, input) =>
      view(mutate(accountId, id, (record, now) => JobLifecycle.answer(record, input, now))),
    cancel: (accountId, id) => view(mutate(accountId, id, JobLifecycle.cancel)),
    events: (accountId, id) =>
      Effect.flatMap(Ref.get(state), (current) =>
        find(current, accountId, id) === undefined
          ? Effect.fail(notFound(id))
          : Effect.succeed(
            current.events
              .filter((event) => event.jobId === id)
              .map(({ accountId: _accountId, ...event }): JobEvent => event)
          )),
    awaitingInterpretation: Effect.map(Ref.get(state), (current) =>
      Array.from(current.jobs.values())
        .filter(({ record }) => record.status === "interpreting")
        .sort((a, b) => a.seq - b.seq)
        .slice(0, 100)
        .map(({ record }) => ({ accountId: record.accountId, jobId: record.id, revision: record.revision }))),
    interpretationInput: (ref) =>
      Effect.map(Ref.get(state), (current) => {
        const entry = find(current, ref.accountId, ref.jobId)
        return entry !== undefined && entry.record.status === "interpreting" && entry.record.revision === ref.revision
          ? Option.some(toInterpretInput(entry.record))
          : Option.none()
      }),
    recordInterpretation: (ref, interpretation) =>
      mutate(
        ref.accountId,
        ref.jobId,
        (record, now) => Result.succeed(JobLifecycle.interpreted(record, ref.revision, interpretation, now))
      ).pipe(
        Effect.map((change) => change.events.length > 0),
        Effect.catchIf(isNotFound, () => Effect.succeed(false))
      )
  }
}))
