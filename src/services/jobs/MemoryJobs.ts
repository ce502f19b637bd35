import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { JobAsOf, JobEvent, ViewPoint } from "../../schema/JobEvent.ts"
import type { JobId } from "../../schema/JobRef.ts"
import type { EventPageOptions, EventRead } from "./Jobs.ts"
import { commands, cursorExpired, decodeCursor, encodeCursor, Jobs, noView, withAsOf } from "./Jobs.ts"
import * as JobStore from "./JobStore.ts"
import { notFound } from "./JobStore.ts"
import type { MemoryState } from "./MemoryJobStore.ts"
import { findIn, JobMemory } from "./MemoryJobStore.ts"
import * as EventFold from "./rules/EventFold.ts"
import type { HistoryPruned, UnknownJob } from "./rules/JobErrors.ts"
import * as Revision from "./rules/Revision.ts"

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

/** In memory, over the one store the Job family's memory layers share (`JobMemory`), with the semantics of the SQL `layer`. */
export const layerMemory = Layer.effect(Jobs)(Effect.gen(function*() {
  const store = yield* JobStore.JobStore
  const { state } = yield* JobMemory

  const pointInTime = (
    current: MemoryState,
    accountId: AccountId,
    id: JobId,
    point: ViewPoint
  ): Result.Result<JobAsOf, UnknownJob | HistoryPruned> => {
    if (findIn(current, accountId, id) === undefined) return Result.fail(notFound(id))
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
    const job = EventFold.fold(base?.snapshot, since)
    return job === undefined
      ? Result.fail(noView(id, point))
      : Result.succeed(withAsOf(job, since.at(-1)?.position ?? from))
  }

  const eventPage = (
    current: MemoryState,
    accountId: AccountId,
    options: EventPageOptions
  ): Result.Result<EventRead, UnknownJob | HistoryPruned> => {
    if (options.jobId !== undefined && findIn(current, accountId, options.jobId) === undefined) {
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

  return {
    ...commands(store),
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
          data: page.map(({ record }) => Revision.toView(record)),
          nextCursor: rows.length > options.limit ? encodeCursor(page[page.length - 1]!.seq) : null
        }
      }),
    events: (accountId, id) =>
      Effect.flatMap(Ref.get(state), (current) =>
        findIn(current, accountId, id) === undefined
          ? Effect.fail(notFound(id))
          : Effect.succeed(current.jobEvents.get(id) ?? [])),
    eventPage: (accountId, options) =>
      Effect.flatMap(Ref.get(state), (current) => Effect.fromResult(eventPage(current, accountId, options))),
    latestPosition: (accountId) =>
      Effect.map(Ref.get(state), (current) => current.accountEvents.get(accountId)?.at(-1)?.position ?? 0)
  }
}))
