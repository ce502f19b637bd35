import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SqlClient from "effect/sql/SqlClient"
import * as SqlSchema from "effect/sql/SqlSchema"
import { AccountId } from "../../schema/ApiKey.ts"
import { Job, JobId, JobRevision, JobStatus } from "../../schema/Job.ts"
import type { JobEvent, ViewPoint } from "../../schema/JobEvent.ts"
import { After, EventType, JobEvent as JobEventSchema, Position } from "../../schema/JobEvent.ts"
import * as StoreGuard from "../store/StoreGuard.ts"
import type { EventPageOptions } from "./Jobs.ts"
import { commands, cursorExpired, decodeCursor, encodeCursor, Jobs, noView, withAsOf } from "./Jobs.ts"
import * as JobStore from "./JobStore.ts"
import { notFound } from "./JobStore.ts"
import * as EventFold from "./rules/EventFold.ts"
import { StoredJobRecord } from "./rules/JobRecord.ts"
import * as Revision from "./rules/Revision.ts"
import { horizonOf, InstantFromDate, JobKey } from "./SqlJobStore.ts"

/** A position (or a Job's place in the list) as read: text, since a `bigint` is wider than a JavaScript number. */
const PositionText = Schema.NumberFromString.pipe(Schema.decodeTo(Position))

/** An event's row; its columns by name. */
const eventFields = {
  position: PositionText,
  jobId: JobId,
  jobRevision: JobRevision,
  type: EventType,
  data: Schema.fromJsonString(JobEventSchema.fields.data),
  occurredAt: InstantFromDate
}
const eventColumnNames = { jobId: "job_id", jobRevision: "job_revision", occurredAt: "occurred_at" } as const
const EventRow = Schema.Struct(eventFields).pipe(Schema.encodeKeys(eventColumnNames))

/** A row of `eventPage`: an event (or none, when the page is empty) and the checks of the read. */
const pageChecks = { pruned: Schema.NullOr(PositionText), found: Schema.Boolean }
const PageRow = Schema.Union([
  Schema.Struct({ ...eventFields, published: Schema.Boolean, ...pageChecks }).pipe(Schema.encodeKeys(eventColumnNames)),
  Schema.Struct({ position: Schema.Null, published: Schema.Null, ...pageChecks })
])
type PageRow = typeof PageRow.Type
type EventPageRow = Extract<PageRow, { readonly published: boolean }>
const isEvent = (row: PageRow): row is EventPageRow => row.position !== null
const isPublished = (row: PageRow): row is EventPageRow => row.published === true

/** An event of a page's row, without the read's checks. */
const toEvent = (row: EventPageRow): JobEvent => ({
  position: row.position,
  jobId: row.jobId,
  jobRevision: row.jobRevision,
  type: row.type,
  data: row.data,
  occurredAt: row.occurredAt
})

/** A revision's snapshot: the Job as it was shown at the end of the revision. */
const StoredJob = Schema.fromJsonString(Job)

const AccountKey = Schema.Struct({ accountId: AccountId })

/** PostgreSQL: reads here, every change through `JobStore` (see there for how positions are made). */
export const layer = Layer.effect(Jobs)(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const guard = yield* StoreGuard.make("jobs")
  const store = yield* JobStore.JobStore

  const horizon = horizonOf(sql)

  const selectExists = SqlSchema.findOne({
    Request: JobKey,
    Result: Schema.Struct({ found: Schema.Boolean }),
    execute: ({ accountId, id }) =>
      sql`SELECT EXISTS (SELECT 1 FROM jobs WHERE id = ${id} AND account_id = ${accountId}) AS found`
  })

  /** `UnknownJob` unless the account has the Job: a check, with no record to read. */
  const exists = (accountId: AccountId, id: JobId) =>
    Effect.flatMap(selectExists({ accountId, id }), ({ found }) => found ? Effect.void : Effect.fail(notFound(id)))

  const selectPruned = SqlSchema.findOneOption({
    Request: AccountKey,
    Result: Schema.Struct({ pruned: PositionText }),
    execute: ({ accountId }) =>
      sql`
        SELECT pruned_through::text AS pruned FROM job_event_retention WHERE account_id = ${accountId}`
  })

  /** The highest position pruned from the account's events (0 when none was). */
  const prunedThrough = (accountId: AccountId) =>
    Effect.map(
      selectPruned({ accountId }),
      (row) => Option.isNone(row) ? 0 : row.value.pruned
    )

  const eventColumns = sql`e.position::text AS position, e.job_id, e.job_revision, e.type, e.data, e.occurred_at`

  const revisionSnapshot = SqlSchema.findOneOption({
    Request: Schema.Struct({ accountId: AccountId, id: JobId, revision: JobRevision }),
    Result: Schema.Struct({ snapshot: StoredJob, last: PositionText }),
    execute: ({ accountId, id, revision }) =>
      sql`
          SELECT r.snapshot, r.last_position::text AS last FROM job_revisions r JOIN jobs j ON j.id = r.job_id
          WHERE r.job_id = ${id} AND j.account_id = ${accountId} AND r.revision = ${revision}`
  })

  const snapshotBefore = SqlSchema.findOneOption({
    Request: Schema.Struct({ id: JobId, position: After }),
    Result: Schema.Struct({ snapshot: StoredJob, revision: JobRevision, last: PositionText }),
    execute: ({ id, position }) =>
      sql`
        SELECT snapshot, revision, last_position::text AS last FROM job_revisions
        WHERE job_id = ${id} AND last_position <= ${position} AND last_position < ${horizon}
        ORDER BY last_position DESC LIMIT 1`
  })

  const revisionBegun = SqlSchema.findOneOption({
    Request: Schema.Struct({ id: JobId, revision: JobRevision, position: After }),
    Result: Schema.Struct({ first: PositionText }),
    execute: ({ id, position, revision }) =>
      sql`
        SELECT first_position::text AS first FROM job_revisions
        WHERE job_id = ${id} AND revision = ${revision}
          AND first_position <= ${position} AND first_position < ${horizon}`
  })

  const eventsBetween = SqlSchema.findAll({
    Request: Schema.Struct({ id: JobId, from: After, through: After }),
    Result: EventRow,
    execute: ({ from, id, through }) =>
      sql`
        SELECT ${eventColumns} FROM job_events e
        WHERE e.job_id = ${id} AND e.position > ${from} AND e.position <= ${through}
          AND e.position < ${horizon}
        ORDER BY e.position`
  })

  const pointInTime = (accountId: AccountId, id: JobId, point: ViewPoint) =>
    Effect.gen(function*() {
      if (point._tag === "Revision") {
        const row = yield* revisionSnapshot({ accountId, id, revision: point.revision })
        if (Option.isNone(row)) return yield* Effect.fail(noView(id, point))
        return withAsOf(row.value.snapshot, row.value.last)
      }
      yield* exists(accountId, id)
      // The snapshot at the end of the last revision that ended by the position (and is published), ...
      const base = Option.getOrUndefined(yield* snapshotBefore({ id, position: point.position }))
      const from = base === undefined ? 0 : base.last
      const snapshot = base?.snapshot
      // ... and, when the next revision had begun by then, the fold of its events up to the position.
      const next = Option.getOrUndefined(
        yield* revisionBegun({ id, revision: (base?.revision ?? 0) + 1, position: point.position })
      )
      if (next === undefined) {
        return snapshot === undefined ? yield* Effect.fail(noView(id, point)) : withAsOf(snapshot, from)
      }
      if ((yield* prunedThrough(accountId)) >= next.first) {
        return yield* Effect.fail(cursorExpired(point.position))
      }
      const since = yield* eventsBetween({ id, from, through: point.position })
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
  const selectPage = SqlSchema.findNonEmpty({
    Request: Schema.Struct({
      accountId: AccountId,
      jobId: Schema.optional(JobId),
      after: After,
      limit: Schema.Int
    }),
    Result: PageRow,
    execute: ({ accountId, ...options }) =>
      sql`
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
  })

  const eventPage = (accountId: AccountId, options: EventPageOptions) =>
    Effect.gen(function*() {
      // Published events are a prefix in position order: what follows them is committed but not published yet.
      const rows = yield* selectPage({ accountId, ...options })
      const { found, pruned } = rows[0]
      if (!found) return yield* Effect.fail(notFound(options.jobId!))
      if (options.after > 0 && options.after < (pruned ?? 0)) {
        return yield* Effect.fail(cursorExpired(options.after))
      }
      const published = rows.filter(isPublished)
      return { events: published.map(toEvent), pending: published.length < rows.filter(isEvent).length }
    })

  const selectList = SqlSchema.findAll({
    Request: Schema.Struct({
      accountId: AccountId,
      status: Schema.optional(JobStatus),
      before: Schema.optional(Position),
      limit: Schema.Int
    }),
    Result: Schema.Struct({ record: StoredJobRecord, seq: PositionText }),
    execute: ({ accountId, before, limit, status }) =>
      sql`
          SELECT record, seq::text AS seq FROM jobs
          WHERE account_id = ${accountId}
            ${status === undefined ? sql`` : sql`AND status = ${status}`}
            ${before === undefined ? sql`` : sql`AND seq < ${before}`}
          ORDER BY jobs.seq DESC LIMIT ${limit}`
  })

  const selectEvents = SqlSchema.findAll({
    Request: JobKey,
    Result: EventRow,
    execute: ({ accountId, id }) =>
      sql`
          SELECT ${eventColumns} FROM job_events e
          WHERE e.account_id = ${accountId} AND e.job_id = ${id} AND e.position < ${horizon}
          ORDER BY e.position`
  })

  const selectLatest = SqlSchema.findOne({
    Request: AccountKey,
    Result: Schema.Struct({ position: Schema.NullOr(PositionText) }),
    execute: ({ accountId }) =>
      sql`
        SELECT max(position)::text AS position FROM job_events
        WHERE account_id = ${accountId} AND position < ${horizon}`
  })

  return {
    ...commands(store),
    view: (accountId, id, point) => guard(pointInTime(accountId, id, point)),
    list: (accountId, options) =>
      guard(Effect.gen(function*() {
        const before = options.cursor === undefined ? undefined : yield* Effect.fromResult(decodeCursor(options.cursor))
        const rows = yield* selectList({ accountId, status: options.status, before, limit: options.limit + 1 })
        const page = rows.slice(0, options.limit)
        return {
          data: page.map((row) => Revision.toView(row.record)),
          nextCursor: rows.length > options.limit ? encodeCursor(page[page.length - 1]!.seq) : null
        }
      })),
    events: (accountId, id) =>
      guard(Effect.gen(function*() {
        yield* exists(accountId, id)
        return yield* selectEvents({ accountId, id })
      })),
    eventPage: (accountId, options) => guard(eventPage(accountId, options)),
    latestPosition: (accountId) =>
      guard(selectLatest({ accountId })).pipe(
        Effect.map((row) => row.position ?? 0)
      )
  }
}))
