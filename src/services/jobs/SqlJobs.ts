import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { CreateJobRequest, Job, JobId } from "../../schema/Job.ts"
import type { EventType, JobEvent, ViewPoint } from "../../schema/JobEvent.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import type { EventPageOptions } from "./Jobs.ts"
import { commands, cursorExpired, decodeCursor, encodeCursor, Jobs, noView, withAsOf } from "./Jobs.ts"
import * as JobStore from "./JobStore.ts"
import { eventsPerTransaction, notFound, nowIso } from "./JobStore.ts"
import * as EventFold from "./rules/EventFold.ts"
import { fromStored } from "./rules/JobRecord.ts"
import * as Revision from "./rules/Revision.ts"

interface EventRow {
  readonly position: string
  readonly job_id: string
  readonly job_revision: number
  readonly type: EventType
  readonly data: string
  readonly occurred_at: Date
}

/** A row of `eventPage`: an event (or none, when the page is empty) and the checks of the read. */
type PageRow = { readonly [K in keyof EventRow]: EventRow[K] | null } & {
  readonly published: boolean | null
  readonly pruned: string | null
  readonly found: boolean
}
const isEvent = (row: PageRow): row is PageRow & EventRow => row.position !== null
const isPublished = (row: PageRow): row is PageRow & EventRow => row.published === true

const toEvent = (row: EventRow): JobEvent => ({
  position: Number(row.position),
  jobId: row.job_id as JobId,
  jobRevision: row.job_revision,
  type: row.type,
  data: JSON.parse(row.data),
  occurredAt: row.occurred_at.toISOString()
})

/** PostgreSQL: reads here, every change through `JobStore` (see there for how positions are made). */
export const layer = Layer.effect(Jobs)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("jobs")
  const store = yield* JobStore.JobStore

  /** The first position no reader may publish yet: every event before it is committed, for good. */
  const horizon = sql`(pg_snapshot_xmin(pg_current_snapshot())::text::bigint * ${eventsPerTransaction})`

  const parse = (text: string) => fromStored(JSON.parse(text))

  const find = (accountId: AccountId, id: JobId) =>
    sql<{ readonly record: string }>`SELECT record FROM jobs WHERE id = ${id} AND account_id = ${accountId}`.pipe(
      Effect.flatMap(([row]) => row === undefined ? Effect.fail(notFound(id)) : Effect.succeed(parse(row.record)))
    )

  const create = (accountId: AccountId, input: CreateJobRequest) =>
    Effect.gen(function*() {
      const change = Revision.create(Revision.newJobId(), accountId, input, yield* nowIso)
      yield* store.insert(change)
      return Revision.toView(change.record)
    })

  const mutate = store.mutate

  /** The highest position pruned from the account's events (0 when none was). */
  const prunedThrough = (accountId: AccountId) =>
    Effect.map(
      sql<{ readonly pruned: string }>`
        SELECT pruned_through::text AS pruned FROM job_event_retention WHERE account_id = ${accountId}`,
      ([row]) => row === undefined ? 0 : Number(row.pruned)
    )

  const eventColumns = sql`e.position::text AS position, e.job_id, e.job_revision, e.type, e.data, e.occurred_at`

  const pointInTime = (accountId: AccountId, id: JobId, point: ViewPoint) =>
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
      const job = EventFold.fold(snapshot, since)
      if (job === undefined) return yield* Effect.fail(noView(id, point))
      return withAsOf(job, since.at(-1)?.position ?? from)
    })

  /**
   * One statement, so one snapshot: the page, the account's prune mark and the Job's existence are read
   * together (a prune committed meanwhile is in all of them or in none, so it can never leave a silent
   * gap), in one round trip, which a stream's tail pays on every change of its account. With no event
   * after the cursor, one row still carries the checks (its event's columns null).
   */
  const eventPage = (accountId: AccountId, options: EventPageOptions) =>
    Effect.gen(function*() {
      // Published events are a prefix in position order: what follows them is committed but not published yet.
      const rows = yield* sql<PageRow>`
        WITH page AS (
          SELECT e.position, e.job_id, e.job_revision, e.type, e.data, e.occurred_at,
            e.position < ${horizon} AS published
          FROM job_events e
          WHERE e.account_id = ${accountId}
            ${options.jobId === undefined ? sql`` : sql`AND e.job_id = ${options.jobId}`}
            AND e.position > ${options.after}
          ORDER BY e.position LIMIT ${options.limit}
        )
        SELECT page.position::text AS position, page.job_id, page.job_revision, page.type, page.data,
          page.occurred_at, page.published,
          (SELECT pruned_through::text FROM job_event_retention WHERE account_id = ${accountId}) AS pruned,
          ${
        options.jobId === undefined
          ? sql`true`
          : sql`EXISTS (SELECT 1 FROM jobs WHERE id = ${options.jobId} AND account_id = ${accountId})`
      } AS found
        FROM (SELECT 1) AS one LEFT JOIN page ON true
        ORDER BY page.position`
      const { found, pruned } = rows[0]!
      if (!found) return yield* Effect.fail(notFound(options.jobId!))
      if (options.after > 0 && options.after < Number(pruned ?? 0)) {
        return yield* Effect.fail(cursorExpired(options.after))
      }
      const published = rows.filter(isPublished)
      return { events: published.map(toEvent), pending: published.length < rows.filter(isEvent).length }
    })

  return {
    ...commands(mutate),
    create,
    get: (accountId, id) => guard(Effect.map(find(accountId, id), Revision.toView)),
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
          data: page.map((row) => Revision.toView(parse(row.record))),
          nextCursor: rows.length > options.limit ? encodeCursor(Number(page[page.length - 1]!.seq)) : null
        }
      })),
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
      )
  }
}))
