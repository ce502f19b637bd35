import { Clock, Config, Context, DateTime, Duration, Effect, Layer, Option, Ref, Result } from "effect"
import { SqlClient } from "effect/sql"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import type {
  AnswerQuestionsRequest,
  ChangeConstraintsRequest,
  CreateJobRequest,
  Job,
  JobId,
  JobPage,
  JobStatus
} from "../../schema/Job.ts"
import type { EventType, JobAsOf, JobEvent, ViewPoint } from "../../schema/JobEvent.ts"
import { PositiveDuration } from "../access/Idempotency.ts"
import type { Interpretation, InterpretInput } from "../interpreter/Interpreter.ts"
import * as Pruning from "../store/Pruning.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import { HistoryPruned, RejectedInput, UnknownJob } from "./JobErrors.ts"
import type { StaleRevision, WrongState } from "./JobErrors.ts"
import * as JobLifecycle from "./JobLifecycle.ts"
import type { Change, JobRecord, RunRef } from "./JobLifecycle.ts"
import type { MemoryState } from "./JobStore.ts"
import * as JobStore from "./JobStore.ts"
import { eventsPerTransaction, findIn, MemoryJobs, notFound, nowIso } from "./JobStore.ts"

export interface EventPageOptions {
  /** Only this Job's events (`UnknownJob` when the account has no such Job). */
  readonly jobId?: string | undefined
  /** Events after this position; 0 for the oldest kept. */
  readonly after: number
  readonly limit: number
}

/**
 * Events that can no longer be overtaken by a concurrent commit (published), in position order; and
 * whether committed events follow that are not published yet (a reader should look again shortly).
 */
export interface EventRead {
  readonly events: ReadonlyArray<JobEvent>
  readonly pending: boolean
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
 * account is `UnknownJob`. Once a change that leaves a Job `interpreting` or `cancelled` has committed,
 * `JobWork` is told.
 */
export class Jobs extends Context.Service<Jobs, {
  readonly create: (accountId: AccountId, input: CreateJobRequest) => Effect.Effect<Job, Unavailable>
  readonly get: (accountId: AccountId, id: string) => Effect.Effect<Job, UnknownJob | Unavailable>
  /**
   * The Job as it was at `point` (jobs.md, "Revisions, precisely"): at the end of a revision (after its
   * last event so far), or after every one of its events at positions up to a position. A revision that
   * never existed, or a position before the Job's first event, is `UnknownJob`; a position whose events
   * are past retention, `HistoryPruned`. Its cost does not grow with the Job's history: a snapshot of
   * the revision before, and the fold of the few events since.
   */
  readonly view: (
    accountId: AccountId,
    id: string,
    point: ViewPoint
  ) => Effect.Effect<JobAsOf, UnknownJob | HistoryPruned | Unavailable>
  /** Newest first. */
  readonly list: (accountId: AccountId, options: ListOptions) => Effect.Effect<JobPage, RejectedInput | Unavailable>
  readonly changeConstraints: (
    accountId: AccountId,
    id: string,
    input: ChangeConstraintsRequest
  ) => Effect.Effect<Job, UnknownJob | WrongState | StaleRevision | Unavailable>
  readonly answer: (
    accountId: AccountId,
    id: string,
    input: AnswerQuestionsRequest
  ) => Effect.Effect<Job, UnknownJob | WrongState | RejectedInput | StaleRevision | Unavailable>
  readonly cancel: (accountId: AccountId, id: string) => Effect.Effect<Job, UnknownJob | WrongState | Unavailable>
  /** The Job's events that can no longer be overtaken by a concurrent commit, by position. */
  readonly events: (
    accountId: AccountId,
    id: string
  ) => Effect.Effect<ReadonlyArray<JobEvent>, UnknownJob | Unavailable>
  /**
   * A page of the account's events (or one Job's) after a position; `HistoryPruned` when events after
   * it have been pruned (`EVENTS_RETENTION`).
   */
  readonly eventPage: (
    accountId: AccountId,
    options: EventPageOptions
  ) => Effect.Effect<EventRead, UnknownJob | HistoryPruned | Unavailable>
  /** The position of the account's last published event; 0 when it has none. */
  readonly latestPosition: (accountId: AccountId) => Effect.Effect<number, Unavailable>
  /** Deletes the events older than `EVENTS_RETENTION`; answers how many. */
  readonly pruneEvents: Effect.Effect<number, Unavailable>
  /** The runs that Jobs whose work is not finished need (`JobLifecycle.runsOf`), oldest Jobs first (at most 100). */
  readonly pendingRuns: Effect.Effect<ReadonlyArray<RunRef>, Unavailable>
  /** What to interpret for `ref`, while the Job is still interpreting that revision. */
  readonly interpretationInput: (ref: RunRef) => Effect.Effect<Option.Option<InterpretInput>, Unavailable>
  /** Applies an interpretation of `ref`; false when the Job has moved on (nothing changes then). */
  readonly recordInterpretation: (ref: RunRef, interpretation: Interpretation) => Effect.Effect<boolean, Unavailable>
}>()("Jobs") {}

export const maxListLimit = 100

/** Prunes events past `EVENTS_RETENTION` every `interval` (10 minutes unless told), in the background. */
export const pruneEventsLoop = (interval?: Duration.Input) =>
  Pruning.every("events past retention", Effect.flatMap(Jobs, (jobs) => jobs.pruneEvents), interval)

const isNotFound = (error: unknown): error is UnknownJob => error instanceof UnknownJob

const badCursor = new RejectedInput({ message: "cursor is not one this service gave; start again without it." })

/** Cursors are opaque to callers: the position in the list, in base64url. */
const encodeCursor = (seq: number) => Buffer.from(JSON.stringify({ before: seq })).toString("base64url")
const decodeCursor = (cursor: string): Result.Result<number, RejectedInput> => {
  try {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return Result.fail(badCursor)
    const { before } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
    return Number.isSafeInteger(before) && before > 0 ? Result.succeed(before) : Result.fail(badCursor)
  } catch {
    return Result.fail(badCursor)
  }
}

/** `EVENTS_RETENTION` (30 days): how long events are kept, and so how old a cursor may be. */
export const EventsConfig = Config.all({
  retention: Config.schema(PositiveDuration, "EVENTS_RETENTION").pipe(Config.withDefault(Duration.days(30)))
})

const cursorExpired = (after: number) =>
  new HistoryPruned({
    message: `Events after position ${after} are past retention; read the Job again and resume from a newer position.`
  })

const noView = (id: string, point: ViewPoint) =>
  new UnknownJob({
    message: point._tag === "Revision"
      ? `The Job ${JSON.stringify(id)} has no revision ${point.revision}.`
      : `The Job ${JSON.stringify(id)} has no event at or before position ${point.position}.`
  })

const withAsOf = (job: Job, position: number): JobAsOf => ({ ...job, asOf: { jobRevision: job.jobRevision, position } })

const toInterpretInput = (record: JobRecord): InterpretInput => ({
  ...JobLifecycle.interpretInput(record),
  createdAt: DateTime.makeUnsafe(record.createdAt)
})

/** Events deleted by one statement of the prune. */
const pruneBatchSize = 1000

interface EventRow {
  readonly position: string
  readonly job_id: string
  readonly job_revision: number
  readonly type: EventType
  readonly data: string
  readonly occurred_at: Date
}

const toEvent = (row: EventRow): JobEvent => ({
  position: Number(row.position),
  jobId: row.job_id as JobId,
  jobRevision: row.job_revision,
  type: row.type,
  data: JSON.parse(row.data),
  occurredAt: row.occurred_at.toISOString()
})

/** PostgreSQL: reads here, every change through `JobStore` (see there for how positions are made). */
const live = Layer.effect(Jobs)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("jobs")
  const store = yield* JobStore.JobStore
  const { retention } = yield* EventsConfig
  const retentionMillis = Duration.toMillis(retention)

  /** The first position no reader may publish yet: every event before it is committed, for good. */
  const horizon = sql`(pg_snapshot_xmin(pg_current_snapshot())::text::bigint * ${eventsPerTransaction})`

  const parse = (text: string) => JobLifecycle.fromStored(JSON.parse(text))

  const find = (accountId: AccountId, id: string) =>
    sql<{ readonly record: string }>`SELECT record FROM jobs WHERE id = ${id} AND account_id = ${accountId}`.pipe(
      Effect.flatMap(([row]) => row === undefined ? Effect.fail(notFound(id)) : Effect.succeed(parse(row.record)))
    )

  const create = (accountId: AccountId, input: CreateJobRequest) =>
    Effect.gen(function*() {
      const change = JobLifecycle.create(JobLifecycle.newJobId(), accountId, input, yield* nowIso)
      yield* store.insert(change)
      return JobLifecycle.toView(change.record)
    })

  const mutate = store.mutate

  const view = <E>(effect: Effect.Effect<Change, E>) =>
    Effect.map(effect, (change) => JobLifecycle.toView(change.record))

  /** The highest position pruned from the account's events (0 when none was). */
  const prunedThrough = (accountId: AccountId) =>
    Effect.map(
      sql<{ readonly pruned: string }>`
        SELECT pruned_through::text AS pruned FROM job_event_retention WHERE account_id = ${accountId}`,
      ([row]) => row === undefined ? 0 : Number(row.pruned)
    )

  const eventColumns = sql`e.position::text AS position, e.job_id, e.job_revision, e.type, e.data, e.occurred_at`

  const pointInTime = (accountId: AccountId, id: string, point: ViewPoint) =>
    Effect.gen(function*() {
      if (point._tag === "Revision") {
        const [row] = yield* sql<{ readonly snapshot: string; readonly last: string }>`
          SELECT r.snapshot, r.last_position::text AS last FROM job_revisions r JOIN jobs j ON j.id = r.job_id
          WHERE r.job_id = ${id} AND j.account_id = ${accountId} AND r.revision = ${point.revision}`
        if (row === undefined) return yield* Effect.fail(noView(id, point))
        return withAsOf(JSON.parse(row.snapshot) as Job, Number(row.last))
      }
      yield* find(accountId, id)
      // The snapshot at the end of the last revision that ended by the position (and is published), ...
      const [base] = yield* sql<{ readonly snapshot: string; readonly revision: number; readonly last: string }>`
        SELECT snapshot, revision, last_position::text AS last FROM job_revisions
        WHERE job_id = ${id} AND last_position <= ${point.position} AND last_position < ${horizon}
        ORDER BY last_position DESC LIMIT 1`
      const from = base === undefined ? 0 : Number(base.last)
      const snapshot = base === undefined ? undefined : JSON.parse(base.snapshot) as Job
      // ... and, when the next revision had begun by then, the fold of its events up to the position.
      const [next] = yield* sql<{ readonly first: string }>`
        SELECT first_position::text AS first FROM job_revisions
        WHERE job_id = ${id} AND revision = ${(base?.revision ?? 0) + 1}
          AND first_position <= ${point.position} AND first_position < ${horizon}`
      if (next === undefined) {
        return snapshot === undefined ? yield* Effect.fail(noView(id, point)) : withAsOf(snapshot, from)
      }
      if ((yield* prunedThrough(accountId)) >= Number(next.first)) {
        return yield* Effect.fail(cursorExpired(point.position))
      }
      const since = (yield* sql<EventRow>`
        SELECT ${eventColumns} FROM job_events e
        WHERE e.job_id = ${id} AND e.position > ${from} AND e.position <= ${point.position}
          AND e.position < ${horizon}
        ORDER BY e.position`).map(toEvent)
      const job = JobLifecycle.fold(snapshot, since)
      if (job === undefined) return yield* Effect.fail(noView(id, point))
      return withAsOf(job, since.at(-1)?.position ?? from)
    })

  const eventPage = (accountId: AccountId, options: EventPageOptions) =>
    Effect.gen(function*() {
      // Published events are a prefix in position order: what follows them is committed but not published yet.
      const rows = yield* sql<EventRow & { readonly published: boolean }>`
        SELECT ${eventColumns}, e.position < ${horizon} AS published FROM job_events e
        WHERE e.account_id = ${accountId}
          ${options.jobId === undefined ? sql`` : sql`AND e.job_id = ${options.jobId}`}
          AND e.position > ${options.after}
        ORDER BY e.position LIMIT ${options.limit}`
      // Checked after the read: a prune that commits in between makes the cursor expired, never a silent gap.
      const [check] = yield* sql<{ readonly pruned: string | null; readonly found: boolean }>`
        SELECT (SELECT pruned_through::text FROM job_event_retention WHERE account_id = ${accountId}) AS pruned,
          ${
        options.jobId === undefined
          ? sql`true`
          : sql`EXISTS (SELECT 1 FROM jobs WHERE id = ${options.jobId} AND account_id = ${accountId})`
      } AS found`
      if (!check!.found) return yield* Effect.fail(notFound(options.jobId!))
      if (options.after > 0 && options.after < Number(check!.pruned ?? 0)) {
        return yield* Effect.fail(cursorExpired(options.after))
      }
      const published = rows.filter((row) => row.published)
      return { events: published.map(toEvent), pending: published.length < rows.length }
    })

  /** Deletes one batch of events past retention, in a statement of its own; answers how many. */
  const pruneBatch = sql<{ readonly pruned: number }>`
    WITH gone AS (
      DELETE FROM job_events WHERE position IN (
        SELECT position FROM job_events
        WHERE occurred_at < now() - ${retentionMillis}::double precision * interval '1 millisecond'
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
    SELECT count(*)::int AS pruned FROM gone`.pipe(Effect.map(([row]) => row?.pruned ?? 0))

  return {
    create,
    get: (accountId, id) => guard(Effect.map(find(accountId, id), JobLifecycle.toView)),
    view: (accountId, id, point) => guard(pointInTime(accountId, id, point)),
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
      view(mutate(accountId, id, (record, now) => JobLifecycle.changeConstraints(record, input, now))),
    answer: (accountId, id, input) =>
      view(mutate(accountId, id, (record, now) => JobLifecycle.answer(record, input, now))),
    cancel: (accountId, id) => view(mutate(accountId, id, JobLifecycle.cancel)),
    events: (accountId, id) =>
      guard(Effect.gen(function*() {
        yield* find(accountId, id)
        const rows = yield* sql<EventRow>`
          SELECT ${eventColumns} FROM job_events e
          WHERE e.account_id = ${accountId} AND e.job_id = ${id} AND e.position < ${horizon}
          ORDER BY e.position`
        return rows.map(toEvent)
      })),
    eventPage: (accountId, options) => guard(eventPage(accountId, options)),
    latestPosition: (accountId) =>
      guard(sql<{ readonly position: string | null }>`
        SELECT max(position)::text AS position FROM job_events
        WHERE account_id = ${accountId} AND position < ${horizon}`).pipe(
        Effect.map(([row]) => Number(row?.position ?? 0))
      ),
    // In small batches, each a short transaction: a long one would hold publication back for every account.
    pruneEvents: Effect.gen(function*() {
      let total = 0
      while (true) {
        const pruned = yield* guard(pruneBatch)
        total += pruned
        if (pruned < pruneBatchSize) return total
      }
    }),
    pendingRuns: guard(sql<{ readonly record: string }>`
      SELECT record FROM jobs WHERE needs_run ORDER BY seq LIMIT 100`).pipe(
      Effect.map((rows) => rows.flatMap((row) => JobLifecycle.runsOf(parse(row.record))))
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

/** The index of the first of `items` (ordered by `key`) whose key is above `bound`. */
const firstAbove = <A>(items: ReadonlyArray<A>, bound: number, key: (item: A) => number) => {
  let low = 0
  let high = items.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (key(items[middle]!) <= bound) low = middle + 1
    else high = middle
  }
  return low
}

const positionOf = (event: JobEvent) => event.position

/** In memory, over the store the Job family's Test layers share (`MemoryJobs`), with the semantics of `layerLive`. */
const memory = Layer.effect(Jobs)(Effect.gen(function*() {
  const store = yield* JobStore.JobStore
  const { state } = yield* MemoryJobs
  const { retention } = yield* EventsConfig
  const find = findIn
  const mutate = store.mutate

  const view = <E>(effect: Effect.Effect<Change, E>) =>
    Effect.map(effect, (change) => JobLifecycle.toView(change.record))

  const pointInTime = (
    current: MemoryState,
    accountId: AccountId,
    id: string,
    point: ViewPoint
  ): Result.Result<JobAsOf, UnknownJob | HistoryPruned> => {
    if (find(current, accountId, id) === undefined) return Result.fail(notFound(id))
    const revisions = current.revisions.get(id) ?? []
    if (point._tag === "Revision") {
      const stored = revisions[point.revision - 1]
      return stored === undefined
        ? Result.fail(noView(id, point))
        : Result.succeed(withAsOf(stored.snapshot, stored.last))
    }
    const index = firstAbove(revisions, point.position, (revision) => revision.last)
    const base = revisions[index - 1]
    const from = base?.last ?? 0
    const next = revisions[index]
    if (next === undefined || next.first > point.position) {
      return base === undefined ? Result.fail(noView(id, point)) : Result.succeed(withAsOf(base.snapshot, from))
    }
    if ((current.prunedThrough.get(accountId) ?? 0) >= next.first) return Result.fail(cursorExpired(point.position))
    const events = current.jobEvents.get(id) ?? []
    const since = events.slice(firstAbove(events, from, positionOf), firstAbove(events, point.position, positionOf))
    const job = JobLifecycle.fold(base?.snapshot, since)
    return job === undefined
      ? Result.fail(noView(id, point))
      : Result.succeed(withAsOf(job, since.at(-1)?.position ?? from))
  }

  const eventPage = (
    current: MemoryState,
    accountId: AccountId,
    options: EventPageOptions
  ): Result.Result<EventRead, UnknownJob | HistoryPruned> => {
    if (options.jobId !== undefined && find(current, accountId, options.jobId) === undefined) {
      return Result.fail(notFound(options.jobId))
    }
    if (options.after > 0 && options.after < (current.prunedThrough.get(accountId) ?? 0)) {
      return Result.fail(cursorExpired(options.after))
    }
    const events = (options.jobId === undefined
      ? current.accountEvents.get(accountId)
      : current.jobEvents.get(options.jobId)) ?? []
    const start = firstAbove(events, options.after, positionOf)
    return Result.succeed({ events: events.slice(start, start + options.limit), pending: false })
  }

  const prune = (current: MemoryState, cutoff: string): readonly [number, MemoryState] => {
    const kept = (events: ReadonlyArray<JobEvent>) => events.filter((event) => event.occurredAt >= cutoff)
    const prunedThrough = new Map(current.prunedThrough)
    let pruned = 0
    for (const [accountId, events] of current.accountEvents) {
      const gone = events.filter((event) => event.occurredAt < cutoff)
      if (gone.length === 0) continue
      pruned += gone.length
      prunedThrough.set(accountId, Math.max(prunedThrough.get(accountId) ?? 0, gone[gone.length - 1]!.position))
    }
    if (pruned === 0) return [0, current]
    return [pruned, {
      ...current,
      jobEvents: new Map(Array.from(current.jobEvents, ([id, events]) => [id, kept(events)])),
      accountEvents: new Map(Array.from(current.accountEvents, ([id, events]) => [id, kept(events)])),
      prunedThrough
    }]
  }

  return {
    create: (accountId, input) =>
      Effect.gen(function*() {
        const change = JobLifecycle.create(JobLifecycle.newJobId(), accountId, input, yield* nowIso)
        yield* store.insert(change)
        return JobLifecycle.toView(change.record)
      }),
    get: (accountId, id) =>
      Effect.flatMap(Ref.get(state), (current) => {
        const entry = find(current, accountId, id)
        return entry === undefined ? Effect.fail(notFound(id)) : Effect.succeed(JobLifecycle.toView(entry.record))
      }),
    view: (accountId, id, point) =>
      Effect.flatMap(Ref.get(state), (current) => Effect.fromResult(pointInTime(current, accountId, id, point))),
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
          : Effect.succeed(current.jobEvents.get(id) ?? [])),
    eventPage: (accountId, options) =>
      Effect.flatMap(Ref.get(state), (current) => Effect.fromResult(eventPage(current, accountId, options))),
    latestPosition: (accountId) =>
      Effect.map(Ref.get(state), (current) => current.accountEvents.get(accountId)?.at(-1)?.position ?? 0),
    pruneEvents: Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const cutoff = new Date(now - Duration.toMillis(retention)).toISOString()
      return yield* Ref.modify(state, (current) => prune(current, cutoff))
    }),
    pendingRuns: Effect.map(Ref.get(state), (current) =>
      Array.from(current.jobs.values())
        .filter(({ record }) => JobLifecycle.runsOf(record).length > 0)
        .sort((a, b) => a.seq - b.seq)
        .slice(0, 100)
        .flatMap(({ record }) => JobLifecycle.runsOf(record))),
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

/** PostgreSQL, changing Jobs through `JobStore.layerLive`. */
export const layerLive = live.pipe(Layer.provide(JobStore.layerLive))

/** In memory, on the store the Job family's Test layers share (`JobStore.layerTest`). */
export const layerTest = memory.pipe(Layer.provide(JobStore.layerTest))
