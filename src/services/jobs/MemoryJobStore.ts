import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as Semaphore from "effect/Semaphore"
import type { AccountId } from "../../schema/ApiKey.ts"
import type { Job, JobId } from "../../schema/Job.ts"
import type { JobEvent } from "../../schema/JobEvent.ts"
import type { Approval, ProposalHash } from "../../schema/Proposal.ts"
import { EventSignal } from "./EventSignal.ts"
import { EventsConfig, JobStore, notFound, nowIso, signalRuns } from "./JobStore.ts"
import type { UnknownJob } from "./rules/JobErrors.ts"
import type { Change, JobRecord } from "./rules/JobRecord.ts"
import * as Revision from "./rules/Revision.ts"
import { RunQueue } from "./runner/RunQueue.ts"

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
 * The in-memory store the memory layers of `Jobs`, `Proposals` and `ApprovalLinks` share, so that one
 * behaviour suite runs unchanged on them and on PostgreSQL.
 */
export class JobMemory extends Context.Service<JobMemory, {
  readonly state: Ref.Ref<MemoryState>
}>()("JobMemory") {}

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
    snapshot: Revision.toView(record),
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

/** Drops the events that occurred before `cutoff`; answers how many. */
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

export const findIn = (current: MemoryState, accountId: AccountId, id: string) => {
  const entry = current.jobs.get(id)
  return entry === undefined || entry.record.accountId !== accountId ? undefined : entry
}

/** In memory, with the semantics of the SQL `layer`: one atomic update per change, then the same signals. */
export const layerMemory = Layer.effectContext(Effect.gen(function*() {
  const work = yield* RunQueue
  const signal = yield* EventSignal
  const { retention } = yield* EventsConfig
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
      id: JobId,
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
      }),
    pendingRuns: Effect.map(Ref.get(state), (current) =>
      Array.from(current.jobs.values())
        .filter(({ record }) => Revision.runsOf(record).length > 0)
        .sort((a, b) => a.seq - b.seq)
        .slice(0, 100)
        .flatMap(({ record }) => Revision.runsOf(record))),
    pruneEvents: Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const cutoff = new Date(now - Duration.toMillis(retention)).toISOString()
      return yield* Ref.modify(state, (current) => prune(current, cutoff))
    })
  })
  return Context.make(JobStore, store).pipe(Context.add(JobMemory, { state }))
}))
