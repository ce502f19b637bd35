import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Latch from "effect/Latch"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as RcMap from "effect/RcMap"
import * as Scope from "effect/Scope"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import type { JobEvent } from "../../schema/JobEvent.ts"
import type { JobId } from "../../schema/JobRef.ts"
import { EventSignal, everyone } from "./EventSignal.ts"
import type { EventPageOptions, EventRead } from "./Jobs.ts"
import { Jobs } from "./Jobs.ts"
import { HistoryPruned } from "./rules/JobErrors.ts"
import type { UnknownJob } from "./rules/JobErrors.ts"

export interface FollowOptions {
  /** Only this Job's events. */
  readonly jobId?: JobId | undefined
  /** Every event after this position (0: from the oldest kept). */
  readonly after: number
}

/**
 * Where a follower's events go. `deliver` is called synchronously by the feed, never twice at once, each
 * time with the events after those it was handed before, in order. The feed hands every live follower of
 * an account the same array for the same events (when it has no `jobId`), so that what a follower makes of
 * them (the bytes of a stream) can be made once and shared.
 */
export interface Follower {
  readonly deliver: (events: ReadonlyArray<JobEvent>) => void
  /** Resolves when the follower can take more: the feed reads history no faster than it is taken. */
  readonly ready: Effect.Effect<void>
  /**
   * The feed cannot go on: the store failed, the follower's cursor fell past retention while it read
   * (resume after the last event received), or the feed is stopping (no error).
   */
  readonly end: (error?: UnknownJob | HistoryPruned | Unavailable) => void
}

/** A follower attached to its account's tail, until `close`. */
export interface Following {
  readonly close: () => void
}

/**
 * Live event streams. `follow` hands a follower every event after a position, then each new one as it is
 * published, exactly once and in position order, whatever writers commit meanwhile.
 *
 * The table is the truth and wake-ups only hints: each process keeps one tail per account that has
 * followers, which reads the account's newly published events once per wake-up (`EventSignal`, or a slow
 * poll in case a wake-up is lost) and hands each batch to every follower of the account, synchronously:
 * no queue, fiber or copy per follower. A tail reads at most once per `coalesceWindow`, and less often
 * when handing on takes long (`handOnShare`), so that under a steady stream of changes one delivery
 * carries several events. A follower first reads the table from its own cursor (in a fiber of its own,
 * only while it catches up), then takes the tail's batches; a batch that does not start where the
 * follower stands (the tail started again past retention) sends it back to the table for the positions in
 * between. So 1,000 followers of one account cost one read per change, not 1,000.
 */
export class EventFeed extends Context.Service<EventFeed, {
  /**
   * Checks the cursor (and the Job) first, so that a stream is only answered when it can start; the
   * first events may be delivered before it returns.
   */
  readonly follow: (
    accountId: AccountId,
    options: FollowOptions,
    follower: Follower
  ) => Effect.Effect<Following, UnknownJob | HistoryPruned | Unavailable>
}>()("EventFeed") {}

/** Published events from `from` (exclusive) to `to` (inclusive), all of the account's, in order. */
interface Batch {
  readonly from: number
  readonly to: number
  readonly events: ReadonlyArray<JobEvent>
}

interface Member {
  readonly take: (batch: Batch) => void
  readonly end: () => void
}

interface Tail {
  /** The last position handed to the members. */
  readonly head: { position: number }
  readonly members: Set<Member>
}

/** Events read at once. */
const pageSize = 500
/** How long a tail waits for a wake-up before it looks anyway. */
const pollInterval = Duration.seconds(10)
/** How long a tail waits before looking again at events committed but not yet published. */
const pendingInterval = Duration.millis(10)
/** The least time between two reads of a tail: what is published meanwhile goes out in one delivery. */
const coalesceWindow = Duration.millis(50)
/**
 * A tail waits at least this many times the CPU its last read took to hand on (for a stream, one socket
 * write each), so that one account's streams take at most about a twentieth of a core however many they
 * are: a thousand streams took 5 to 15 ms of CPU a delivery in the bench, and their tail read every 100
 * to 300 ms.
 * CPU, not elapsed time: a process that yields the core to others while it hands on (the stream process
 * does, at a lower priority) is not slowed down further for it.
 */
const handOnShare = 20
/** The most a tail waits between two reads, however long its deliveries take. */
const maxCoalesceWindow = Duration.millis(500)

/** The CPU this process has used so far, µs. */
const cpuMicros = () => {
  const { system, user } = process.cpuUsage()
  return user + system
}
/** How long a page of history read for one follower answers others that ask for the same page. */
const sharedPageLife = 1000

export const make = Effect.gen(function*() {
  const jobs = yield* Jobs
  const signal = yield* EventSignal
  const services = yield* Effect.context<never>()
  const wakers = new Map<AccountId, Latch.Latch>()

  const openTail = (accountId: AccountId) =>
    Effect.gen(function*() {
      const head = { position: yield* jobs.latestPosition(accountId) }
      const members = new Set<Member>()
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          for (const member of members) member.end()
        })
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
      /** CPU spent handing batches on since the tail last paused, µs. */
      let handingOn = 0
      const publish = (batch: Batch) =>
        Effect.sync(() => {
          const started = cpuMicros()
          head.position = batch.to
          for (const member of members) member.take(batch)
          handingOn += cpuMicros() - started
        })
      const pause = Effect.suspend(() => {
        const window = Duration.clamp(Duration.micros(BigInt(Math.round(handingOn * handOnShare))), {
          minimum: coalesceWindow,
          maximum: maxCoalesceWindow
        })
        handingOn = 0
        return Effect.sleep(window)
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
      // starts again at the newest event, and the empty batch that says so sends every member behind
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
        Effect.andThen(pause),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause) ? Effect.interrupt : Effect.logWarning(
            "event tail cannot read its store; trying again",
            cause
          ).pipe(Effect.andThen(Effect.sleep(Duration.seconds(1))))
        ),
        Effect.forever,
        Effect.forkScoped
      )
      return { head, members } satisfies Tail
    })

  const tails = yield* RcMap.make({ lookup: openTail, idleTimeToLive: Duration.seconds(5) })

  /**
   * History, read once for the followers that ask for the same page at about the same time (clients that
   * reconnect together from the same `Last-Event-ID`): they are handed the same events, so that their
   * bytes are made once too. Events never change, so a page read a moment ago is still true, but it may
   * end before what a tail has handed on since: a follower that has joined its tail takes only pages whose
   * read began after it joined, or after the batch that sent it back to the table (`readAfter`, a count
   * of reads). The read runs on its own, so that a follower that leaves does not fail the others.
   */
  interface SharedPage {
    readonly read: Deferred.Deferred<EventRead, UnknownJob | HistoryPruned | Unavailable>
    /** Its number among the reads begun; infinite until it begins. */
    number: number
  }
  const pages = new Map<string, SharedPage>()
  /** Reads begun so far. */
  let reads = 0
  const historyPage = (accountId: AccountId, options: EventPageOptions, readAfter: number) =>
    Effect.suspend(() => {
      const key = `${accountId} ${options.jobId ?? ""} ${options.after} ${options.limit}`
      let page = pages.get(key)
      if (page === undefined || page.number <= readAfter) {
        const shared: SharedPage = { read: Deferred.makeUnsafe(), number: Number.POSITIVE_INFINITY }
        pages.set(key, page = shared)
        // Begun on the next turn: the followers that join their tail meanwhile (those woken by the same
        // first page) can take it too.
        setImmediate(() => {
          shared.number = ++reads
          Effect.runForkWith(services)(jobs.eventPage(accountId, options)).addObserver((exit) => {
            Deferred.doneUnsafe(shared.read, exit)
            const forget = () => {
              if (pages.get(key) === shared) pages.delete(key)
            }
            // A failure is not kept: the next follower reads again.
            if (Exit.isSuccess(exit)) setTimeout(forget, sharedPageLife).unref()
            else forget()
          })
        })
      }
      const taken = page
      return Effect.map(Deferred.await(taken.read), (read) => ({ read, number: taken.number }))
    })

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

  const follow = (accountId: AccountId, { after, jobId }: FollowOptions, follower: Follower) =>
    Effect.gen(function*() {
      // The first page answers for the cursor and the Job before anything is handed on.
      // Any page will do: the table is read again (below) once the follower has joined its tail.
      const { read: first } = yield* historyPage(accountId, { jobId, after, limit: pageSize }, 0)
      const hand = (events: ReadonlyArray<JobEvent>) => {
        const wanted = jobId === undefined ? events : events.filter((event) => event.jobId === jobId)
        if (wanted.length > 0) follower.deliver(wanted)
      }
      hand(first.events)

      /** The last position handed on (or known to be of no interest). */
      let seen = first.events.at(-1)?.position ?? after
      /** Batches that arrived while the member read the table; `undefined` when it is live. */
      let waiting: Array<Batch> | undefined = []
      let closed = false
      let catchingUp: Fiber.Fiber<void> | undefined
      /**
       * Reads the table after `seen`, up to `until` (all of it when undefined). Everything up to `need`
       * was published when the `readAfter`-th read began (see `historyPage`): a shared page that began
       * before is taken only if it is full or reaches `need`, otherwise the table is read again.
       */
      const readTable = (until: number | undefined, need: number, readAfter: number) =>
        Effect.gen(function*() {
          while (until === undefined || seen < until) {
            const options = { jobId, after: seen, limit: pageSize }
            const shared = yield* historyPage(accountId, options, 0)
            const stale = shared.number <= readAfter && shared.read.events.length < pageSize
              && (shared.read.events.at(-1)?.position ?? seen) < need
            const { events } = stale ? (yield* historyPage(accountId, options, readAfter)).read : shared.read
            const wanted = until === undefined ? events : events.filter((e) => e.position <= until)
            hand(wanted)
            seen = wanted.at(-1)?.position ?? seen
            if (events.length < pageSize || wanted.length < events.length) break
            yield* follower.ready
          }
          if (until !== undefined) seen = Math.max(seen, until)
        })

      const takeLive = (batch: Batch) => {
        if (batch.to <= seen) return
        const fresh = batch.events.length === 0 || batch.events[0]!.position > seen
          ? batch.events
          : batch.events.filter((event) => event.position > seen)
        seen = batch.to
        hand(fresh)
      }

      /**
       * Reads the table up to `until` (all of it when undefined), stands at least at `atLeast`, then hands
       * on the batches that arrived meanwhile, until none is left behind: the member is live.
       */
      const catchUp = (until: number | undefined, atLeast: number, readAfter: number): Effect.Effect<void> =>
        Effect.gen(function*() {
          yield* readTable(until, until ?? atLeast, readAfter)
          seen = Math.max(seen, atLeast)
          while (waiting !== undefined) {
            const batch = waiting.shift()
            if (batch === undefined) waiting = undefined
            else if (batch.from > seen) {
              yield* readTable(batch.from, batch.from, reads)
              takeLive(batch)
            } else takeLive(batch)
          }
          catchingUp = undefined
        }).pipe(
          Effect.catch((error) =>
            Effect.sync(() => {
              catchingUp = undefined
              stop(error)
            })
          )
        )
      const startCatchUp = (until: number | undefined, atLeast: number, readAfter: number) => {
        catchingUp = Effect.runForkWith(services)(catchUp(until, atLeast, readAfter))
      }

      const memberScope = yield* Scope.make()
      // A tail that could not open is not kept: the next follower opens it again.
      const tail = yield* RcMap.get(tails, accountId).pipe(
        Scope.provide(memberScope),
        Effect.tapError(() => RcMap.invalidate(tails, accountId)),
        Effect.onError(() => Scope.close(memberScope, Exit.void))
      )
      const member: Member = {
        take: (batch) => {
          if (waiting !== undefined) waiting.push(batch)
          else if (batch.from > seen) {
            waiting = [batch]
            startCatchUp(batch.from, batch.from, reads)
          } else takeLive(batch)
        },
        end: () => stop()
      }
      const close = () => {
        if (closed) return
        closed = true
        tail.members.delete(member)
        catchingUp?.interruptUnsafe()
        Effect.runForkWith(services)(Scope.close(memberScope, Exit.void))
      }
      const stop = (error?: UnknownJob | HistoryPruned | Unavailable) => {
        if (closed) return
        close()
        follower.end(error)
      }

      // Everything up to the tail's head was published before the table is read again below.
      tail.members.add(member)
      startCatchUp(undefined, tail.head.position, reads)
      return { close } satisfies Following
    })

  return EventFeed.of({ follow })
})

export const layer = Layer.effect(EventFeed)(make)
