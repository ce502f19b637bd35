import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { AccountId, Principal } from "../../schema/ApiKey.ts"
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
import type { JobAsOf, JobEvent, ViewPoint } from "../../schema/JobEvent.ts"
import type { Approval as Decided, ApprovalRequest } from "../../schema/Proposal.ts"
import type { JobStore } from "./JobStore.ts"
import { nowIso } from "./JobStore.ts"
import type { DecisionError } from "./rules/Approval.ts"
import * as Approval from "./rules/Approval.ts"
import { HistoryPruned, RejectedInput, UnknownJob } from "./rules/JobErrors.ts"
import type { StaleRevision, WrongState } from "./rules/JobErrors.ts"
import type { Change } from "./rules/JobRecord.ts"
import * as Revision from "./rules/Revision.ts"

export interface EventPageOptions {
  /** Only this Job's events (`UnknownJob` when the account has no such Job). */
  readonly jobId?: JobId | undefined
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
 * `RunQueue` is told.
 */
export class Jobs extends Context.Service<Jobs, {
  readonly create: (accountId: AccountId, input: CreateJobRequest) => Effect.Effect<Job, Unavailable>
  readonly get: (accountId: AccountId, id: JobId) => Effect.Effect<Job, UnknownJob | Unavailable>
  /**
   * The Job as it was at `point` (docs/API.md, "Operations"): at the end of a revision (after its
   * last event so far), or after every one of its events at positions up to a position. A revision that
   * never existed, or a position before the Job's first event, is `UnknownJob`; a position whose events
   * are past retention, `HistoryPruned`. Its cost does not grow with the Job's history: a snapshot of
   * the revision before, and the fold of the few events since.
   */
  readonly view: (
    accountId: AccountId,
    id: JobId,
    point: ViewPoint
  ) => Effect.Effect<JobAsOf, UnknownJob | HistoryPruned | Unavailable>
  /** Newest first. */
  readonly list: (accountId: AccountId, options: ListOptions) => Effect.Effect<JobPage, RejectedInput | Unavailable>
  readonly changeConstraints: (
    accountId: AccountId,
    id: JobId,
    input: ChangeConstraintsRequest
  ) => Effect.Effect<Job, UnknownJob | WrongState | StaleRevision | Unavailable>
  readonly answer: (
    accountId: AccountId,
    id: JobId,
    input: AnswerQuestionsRequest
  ) => Effect.Effect<Job, UnknownJob | WrongState | RejectedInput | StaleRevision | Unavailable>
  readonly cancel: (accountId: AccountId, id: JobId) => Effect.Effect<Job, UnknownJob | WrongState | Unavailable>
  /** The Job's events that can no longer be overtaken by a concurrent commit, by position. */
  readonly events: (
    accountId: AccountId,
    id: JobId
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
  /** Records a decision on the Job's open proposal, once (docs/API.md, "Proposals, approvals, execution"). */
  readonly decide: (
    principal: Principal,
    id: JobId,
    input: ApprovalRequest
  ) => Effect.Effect<Decided, UnknownJob | DecisionError | Unavailable>
}>()("Jobs") {}

export const badCursor = new RejectedInput({ message: "cursor is not one this service gave; start again without it." })

/** Cursors are opaque to callers: the position in the list, in base64url. */
export const encodeCursor = (seq: number) => Buffer.from(JSON.stringify({ before: seq })).toString("base64url")
export const decodeCursor = (cursor: string): Result.Result<number, RejectedInput> => {
  try {
    if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return Result.fail(badCursor)
    const { before } = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
    return Number.isSafeInteger(before) && before > 0 ? Result.succeed(before) : Result.fail(badCursor)
  } catch {
    return Result.fail(badCursor)
  }
}

export const cursorExpired = (after: number) =>
  new HistoryPruned({
    message: `Events after position ${after} are past retention; read the Job again and resume from a newer position.`
  })

export const noView = (id: string, point: ViewPoint) =>
  new UnknownJob({
    message: point._tag === "Revision"
      ? `The Job ${JSON.stringify(id)} has no revision ${point.revision}.`
      : `The Job ${JSON.stringify(id)} has no event at or before position ${point.position}.`
  })

export const withAsOf = (job: Job, position: number): JobAsOf => ({
  ...job,
  asOf: { jobRevision: job.jobRevision, position }
})

/** A change's Job, as the API shows it. */
export const viewOf = <E, R>(effect: Effect.Effect<Change, E, R>) =>
  Effect.map(effect, (change) => Revision.toView(change.record))

/** A decision on the Job's open proposal, through the store's one write path, as `decidedBy` (a key, or a link). */
export const recordDecision = (
  store: JobStore["Service"],
  accountId: AccountId,
  id: JobId,
  input: ApprovalRequest,
  decidedBy: string
) =>
  Effect.map(
    store.mutate(accountId, id, (record, now) => Approval.decide(record, input, decidedBy, now)),
    (change) => change.approval!
  )

/**
 * What both layers do alike through the store: create a Job and read it whole, and the commands that
 * change it, each a rule (of `Revision`, or `Approval`'s decision) applied through the store's one
 * write path (`JobStore.mutate`).
 */
export const commands = (store: JobStore["Service"]) => ({
  create: (accountId: AccountId, input: CreateJobRequest) =>
    Effect.gen(function*() {
      const change = Revision.create(Revision.newJobId(), accountId, input, yield* nowIso)
      yield* store.insert(change)
      return Revision.toView(change.record)
    }),
  get: (accountId: AccountId, id: JobId) => Effect.map(store.find(accountId, id), Revision.toView),
  changeConstraints: (accountId: AccountId, id: JobId, input: ChangeConstraintsRequest) =>
    viewOf(store.mutate(accountId, id, (record, now) => Revision.changeConstraints(record, input, now))),
  answer: (accountId: AccountId, id: JobId, input: AnswerQuestionsRequest) =>
    viewOf(store.mutate(accountId, id, (record, now) => Revision.answer(record, input, now))),
  cancel: (accountId: AccountId, id: JobId) => viewOf(store.mutate(accountId, id, Revision.cancel)),
  decide: (principal: Principal, id: JobId, input: ApprovalRequest) =>
    recordDecision(store, principal.accountId, id, input, principal.keyId)
})
