import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as RcMap from "effect/RcMap"
import * as Stream from "effect/Stream"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import type { JobEvent } from "../../schema/JobEvent.ts"
import type { JobId } from "../../schema/JobRef.ts"
import { HistoryPruned } from "../jobs/JobErrors.ts"
import type { UnknownJob } from "../jobs/JobErrors.ts"
import { Jobs } from "../jobs/Jobs.ts"
import { EventSignal, everyone } from "./EventSignal.ts"

export interface FollowOptions {
  /** Only this Job's events. */
  readonly jobId?: JobId | undefined
  /** Every event after this position (0: from the oldest kept). */
  readonly after: number
}

/**
 * Live event streams. `follow` answers every event after a position, then each new one as it is
 * published, exactly once and in position order, whatever writers commit meanwhile.
 *
 * The table is the truth and wake-ups only hints: each process keeps one tail per account that has
 * readers, which reads the account's newly published events once per wake-up (`EventSignal`, or a
 * slow poll in case a wake-up is lost) and hands them to every reader as a batch covering a range of
 * positions. A reader first reads the table from its own cursor, then takes the tail's batches; a
 * batch that does not start where the reader stands (it fell behind and the tail's buffer moved on) is
 * preceded by a read of the table for the positions in between. So 1,000 readers of one account cost
 * one read per change, not 1,000.
 */
export class EventFeed extends Context.Service<EventFeed, {
  /**
   * Checks the cursor (and the Job) first, so that a stream is only answered when it can start. The
   * stream then fails when the store does (`Unavailable`), or, rarer, when its cursor falls past
   * retention while it reads: resume after the last event received.
   */
  readonly follow: (
    accountId: AccountId,
    options: FollowOptions
  ) => Effect.Effect<
    Stream.Stream<JobEvent, UnknownJob | HistoryPruned | Unavailable>,
    UnknownJob | HistoryPruned | Unavailable
  >
}>()("EventFeed") {}

/** Published events from `from` (exclusive) to `to` (inclusive), all of the account's, in order. */
interface Batch {
  readonly from: number
  readonly to: number
  readonly events: ReadonlyArray<JobEvent>
}

interface Tail {
  /** The last position read into the tail. */
  readonly head: { position: number }
  readonly batches: PubSub.PubSub<Batch>
}

/** Events read at once. */
const pageSize = 500
/** Batches a tail keeps for readers that fall behind; beyond it they read the table. */
const tailCapacity = 64
/** How long a tail waits for a wake-up before it looks anyway. */
const pollInterval = Duration.seconds(10)
/** How long a tail waits before looking again at events committed but not yet published. */
const pendingInterval = Duration.millis(10)

export const make = Effect.gen(function*() {
  const jobs = yield* Jobs
  const signal = yield* EventSignal
  const wakers = new Map<AccountId, Latch.Latch>()

  const openTail = (accountId: AccountId) =>
    Effect.gen(function*() {
      const head = { position: yield* jobs.latestPosition(accountId) }
      const batches = yield* Effect.acquireRelease(
        PubSub.sliding<Batch>(tailCapacity),
        PubSub.shutdown
      )
      // Open at first: what was committed while the tail opened, and announced before, is read at once.
      const wake = yield* Latch.make(true)
      yield* Effect.acquireRelease(
        Effect.sync(() => wakers.set(accountId, wake)),
        () =>
          Effect.sync(() => {
            if (wakers.get(accountId) === wake) wakers.delete(accountId)
          })
      )
      const publish = (batch: Batch) =>
        Effect.suspend(() => {
          head.position = batch.to
          return PubSub.publish(batches, batch)
        })
      const readNew: Effect.Effect<void, UnknownJob | HistoryPruned | Unavailable> = Effect.gen(function*() {
        while (true) {
          const read = yield* jobs.eventPage(accountId, { after: head.position, limit: pageSize })
          const last = read.events.at(-1)
          if (last !== undefined) yield* publish({ from: head.position, to: last.position, events: read.events })
          if (read.events.length === pageSize) continue
          if (!read.pending) return
          yield* Effect.sleep(pendingInterval)
        }
      })
      // The tail's own cursor fell past retention (a long outage, or a short EVENTS_RETENTION): it
      // starts again at the newest event, and the empty batch that says so sends every reader behind
      // it to the table, which answers them `HistoryPruned`.
      const restart = Effect.flatMap(
        jobs.latestPosition(accountId),
        (latest) => publish({ from: latest, to: latest, events: [] })
      )
      yield* wake.await.pipe(
        Effect.timeoutOption(pollInterval),
        Effect.andThen(wake.close),
        Effect.andThen(readNew),
        Effect.catchIf((error) => error instanceof HistoryPruned, () => restart),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logWarning(
            "event tail cannot read its store; trying again",
            cause
          ).pipe(Effect.andThen(Effect.sleep(Duration.seconds(1))))
        ),
        Effect.forever,
        Effect.forkScoped
      )
      return { head, batches } satisfies Tail
    })

  const tails = yield* RcMap.make({ lookup: openTail, idleTimeToLive: Duration.seconds(5) })

  // One subscriber for the whole process: each wake-up opens the latch of its account's tail, if any.
  const wakeups = yield* signal.subscribe
  yield* PubSub.take(wakeups).pipe(
    Effect.flatMap((wake) =>
      Effect.sync(() => {
        if (wake === everyone) { for (const latch of wakers.values()) latch.openUnsafe() }
        else wakers.get(wake)?.openUnsafe()
      })
    ),
    Effect.forever,
    Effect.forkScoped
  )

  const follow = (accountId: AccountId, { after, jobId }: FollowOptions) =>
    Effect.map(
      // The first page answers for the cursor and the Job before the stream begins.
      jobs.eventPage(accountId, { jobId, after, limit: pageSize }),
      (first) =>
        Stream.callback<JobEvent, UnknownJob | HistoryPruned | Unavailable>(
          (queue) =>
            Effect.gen(function*() {
              const emit = (events: ReadonlyArray<JobEvent>) =>
                Queue.offerAll(queue, jobId === undefined ? events : events.filter((e) => e.jobId === jobId))
              /** Reads the table after `seen` up to `until` (all of it when undefined); answers where it stopped. */
              const readTable = (from: number, until?: number) =>
                Effect.gen(function*() {
                  let seen = from
                  while (until === undefined || seen < until) {
                    const { events } = yield* jobs.eventPage(accountId, { jobId, after: seen, limit: pageSize })
                    const wanted = until === undefined ? events : events.filter((e) => e.position <= until)
                    yield* emit(wanted)
                    seen = wanted.at(-1)?.position ?? seen
                    if (events.length < pageSize || wanted.length < events.length) break
                  }
                  return until === undefined ? seen : Math.max(seen, until)
                })

              yield* emit(first.events)
              // A tail that could not open is not kept: the next reader opens it again.
              const tail = yield* RcMap.get(tails, accountId).pipe(
                Effect.tapError(() => RcMap.invalidate(tails, accountId))
              )
              const batches = yield* PubSub.subscribe(tail.batches)
              // Everything up to the tail's head was published before the table is read again below.
              const head = tail.head.position
              let seen = Math.max(yield* readTable(first.events.at(-1)?.position ?? after), head)
              while (true) {
                const batch = yield* PubSub.take(batches)
                if (batch.to <= seen) continue
                if (batch.from > seen) seen = yield* readTable(seen, batch.from)
                yield* emit(batch.events.filter((event) => event.position > seen))
                seen = batch.to
              }
            }),
          { bufferSize: 256, strategy: "suspend" }
        )
    )

  return EventFeed.of({ follow })
})

export const layer = Layer.effect(EventFeed)(make)
