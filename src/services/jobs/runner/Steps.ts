import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { Unavailable } from "../../../schema/Errors.ts"
import type { ProposalDocument } from "../../../schema/Proposal.ts"
import { Interpreter } from "../../interpreter/Interpreter.ts"
import type { ProviderError } from "../../providers/Provider.ts"
import { Providers, ProviderTimeout, ProviderTransient } from "../../providers/Provider.ts"
import { JobStore } from "../JobStore.ts"
import { ProposalConfig, Proposals } from "../Proposals.ts"
import * as Approval from "../rules/Approval.ts"
import * as Execution from "../rules/Execution.ts"
import type { CallResult, Undo } from "../rules/Execution.ts"
import type { UnknownJob } from "../rules/JobErrors.ts"
import { isNotFound } from "../rules/JobErrors.ts"
import type { ExecutionState, JobRecord, RunRef } from "../rules/JobRecord.ts"
import type { Change } from "../rules/JobRecord.ts"
import { isCurrent } from "../rules/JobRecord.ts"
import * as Proposal from "../rules/Proposal.ts"
import * as Revision from "../rules/Revision.ts"
import * as Timing from "./Timing.ts"

/**
 * Whether a run has more to do after a step: go on, stop, or wait until its open proposal expires (a
 * decision before then begins a new run, and this one then stops).
 */
export const Next = Schema.Union([
  Schema.Literals(["continue", "stop"]),
  Schema.Struct({ waitUntil: Schema.String })
])
export type Next = typeof Next.Type

/**
 * One step of a run at a time (each an activity of the workflow, so at least once): it reads the Job,
 * does the one thing its state asks, and records it. Every provider call happens outside a transaction
 * and right after the Job was read (the fence): a run whose Job has moved to a newer revision or is
 * being cancelled makes no further call for its execution, and undoes what stands. A step run twice
 * changes nothing twice: every record is conditional on the Job's state, and every provider call of
 * an execution carries its durable key.
 */
export class Steps extends Context.Service<Steps, {
  readonly advance: (ref: RunRef) => Effect.Effect<Next, Unavailable>
}>()("Steps") {}

/** What a claim came to: an execution started, blocked by an older one being settled, or nothing to do. */
export type Claim = "started" | "blocked" | "none"

/** An older revision's execution is still being settled: nothing is written, the claim waits. */
class Blocked extends Data.TaggedError("Blocked") {}
const blocked = new Blocked()

/**
 * The claim by which the run `ref` starts executing its approved proposal (`Approval.claim`), under the
 * Job's lock: the runner's, and the tests' that drive a run by hand.
 */
export const claim = (ref: RunRef): Effect.Effect<Claim, UnknownJob | Unavailable, JobStore> =>
  Effect.flatMap(JobStore, (store) =>
    store.mutate(ref.accountId, ref.jobId, (current, now) => {
      const claimed = Approval.claim(current, ref, now)
      return claimed._tag === "Blocked" ? Result.fail(blocked) : Result.succeed(claimed.change)
    })).pipe(
      Effect.map((change): Claim => change.events.length > 0 ? "started" : "none"),
      Effect.catchTag("Blocked", () => Effect.succeed<Claim>("blocked"))
    )

const isUnanswered = (error: unknown): error is ProviderTransient | ProviderTimeout =>
  error instanceof ProviderTransient || error instanceof ProviderTimeout

/**
 * A provider call is never interrupted (a process that stops lets it finish, within the provider's own
 * timeout): work is stopped by the fence before the next call, never by cutting one short.
 */
const whole = Effect.uninterruptible

export const layer = Layer.effect(Steps)(Effect.gen(function*() {
  const timing = yield* Timing.Timing
  // Waits out what cannot answer now, for as long as it takes.
  const waitOut = Timing.waitOut(timing)
  const store = yield* JobStore
  const interpreter = yield* Interpreter
  const proposals = yield* Proposals
  const providers = yield* Providers
  const ttlMillis = Duration.toMillis((yield* ProposalConfig).ttl)

  const record = (ref: RunRef, rule: (record: JobRecord, now: string) => Change) =>
    store.mutate(ref.accountId, ref.jobId, (current, now) => Result.succeed(rule(current, now)))

  /** The reading of the run's revision, recorded unless the Job has moved on meanwhile. */
  const interpret = (ref: RunRef, job: JobRecord) =>
    interpreter.interpret(Revision.interpretInput(job)).pipe(
      Effect.flatMap((interpretation) =>
        record(ref, (current, now) => Revision.interpreted(current, ref.revision, interpretation, now))
      )
    )

  /** The claim of the run's approved proposal (`claim`), on this store. */
  const claimRun = (ref: RunRef) => claim(ref).pipe(Effect.provideService(JobStore, store))

  /**
   * Quotes (never inside a transaction) and presents the proposal of the first quote that fits
   * (`Proposal.present`), if the Job still plans in that run: read again on every attempt, so that a Job
   * cancelled or revised meanwhile is asked for no more quotes.
   */
  const plan = (ref: RunRef) =>
    Effect.gen(function*() {
      const job = yield* store.find(ref.accountId, ref.jobId)
      if (!isCurrent(job, ref) || job.status !== "planning" || job.objective === null) return
      const quotes = yield* providers.quote({
        jobId: job.id,
        jobRevision: job.revision,
        objective: job.objective,
        constraints: [...job.callerConstraints, ...job.interpretedConstraints]
      }).pipe(
        // A provider that refuses to quote has nothing to offer: the User is asked.
        Effect.catchTag(
          "ProviderPermanent",
          (error) => Effect.logWarning("the provider refused to quote", error.message).pipe(Effect.as([]))
        )
      )
      yield* record(ref, (current, now) =>
        Proposal.present(current, ref, { provider: providers.name, quotes, ttlMillis }, now))
    })

  /**
   * Whether a side effect happened as proposed, from the provider's independent record of the key
   * (`inspect`), not from the execution's answer: same offer, same currency, at most `spend`, terms kept.
   */
  const verify = (document: ProposalDocument, key: string) =>
    Effect.map(providers.inspect(key), (inspection) => Execution.compare(document, Option.getOrNull(inspection)))

  /** One execute call; an answer that did not come is looked up by key before anything else. */
  const call = (execution: ExecutionState, document: ProposalDocument): Effect.Effect<CallResult> =>
    whole(providers.execute({ key: execution.key, proposalHash: execution.proposalHash, document })).pipe(
      Effect.map((receipt): CallResult => ({ _tag: "Succeeded", reference: receipt.reference })),
      Effect.catch((error: ProviderError): Effect.Effect<CallResult> => {
        if (error._tag === "ProviderPermanent") return Effect.succeed({ _tag: "Permanent", error: error.message })
        if (error._tag === "ProviderTransient") return Effect.succeed({ _tag: "Transient", error: error.message })
        return whole(providers.inspect(execution.key)).pipe(
          Effect.map((inspection): CallResult =>
            Option.isSome(inspection) && inspection.value.state === "succeeded"
              ? { _tag: "Succeeded", reference: inspection.value.reference }
              : { _tag: "Transient", error: `${error.message}; the provider has no side effect for the key` }
          ),
          Effect.catch((lookup) =>
            Effect.succeed<CallResult>({ _tag: "Transient", error: `${error.message}; ${lookup.message}` })
          )
        )
      })
    )

  /**
   * One attempt to undo what an execution did, if anything: inspect by key, then cancel what stands.
   * Each attempt is recorded (`Execution.undone`), so that every call made to undo has its event.
   */
  const undo = (execution: ExecutionState): Effect.Effect<Undo> =>
    whole(providers.inspect(execution.key)).pipe(
      Effect.flatMap((inspection): Effect.Effect<Undo, ProviderError> => {
        if (Option.isNone(inspection) || inspection.value.state === "failed") {
          return Effect.succeed({ _tag: "Undone", hadEffect: false })
        }
        if (inspection.value.state === "compensated") return Effect.succeed({ _tag: "Undone", hadEffect: true })
        return whole(providers.cancel(execution.key)).pipe(Effect.as<Undo>({ _tag: "Undone", hadEffect: true }))
      }),
      Effect.catch((error) =>
        Effect.succeed<Undo>({ _tag: "Failed", error: error.message, final: error._tag === "ProviderPermanent" })
      )
    )

  /** The run's execution: called, verified, or undone, one step at a time. */
  const settle = (ref: RunRef, job: JobRecord, execution: ExecutionState) =>
    Effect.gen(function*() {
      const carryOn = Execution.wanted(job, execution)
      const document = job.proposal?.hash === execution.proposalHash ? job.proposal.document : undefined
      if (!carryOn || execution.phase === "undoing" || document === undefined) {
        if (execution.undoAttempts > 0) yield* Effect.sleep(Timing.undoBackoff(timing, execution.undoAttempts))
        const result = yield* undo(execution)
        yield* record(ref, (current, now) => Execution.undone(current, execution.number, result, now))
        return
      }
      if (execution.phase === "calling") {
        if (execution.attempts > 0) yield* Effect.sleep(Timing.backoff(timing, execution.attempts))
        const result = yield* call(execution, document)
        yield* record(ref, (current, now) => Execution.executed(current, execution.number, result, now))
        return
      }
      // A provider that cannot answer now has not failed verification: it is asked again until it answers.
      const verification = yield* whole(verify(document, execution.key)).pipe(
        Effect.tapError((error) => Effect.logWarning("verification waits for the provider", error.message)),
        Effect.retry(waitOut),
        // `waitOut` never ends.
        Effect.orDie
      )
      yield* record(
        ref,
        (current, now) => Execution.verified(current, execution.number, providers.name, verification, now)
      )
    })

  const advance = (ref: RunRef): Effect.Effect<Next, Unavailable> =>
    Effect.gen(function*() {
      const job = yield* store.find(ref.accountId, ref.jobId)
      const execution = Execution.ownedBy(job, ref)
      if (execution !== undefined) {
        yield* settle(ref, job, execution)
        return "continue" as const
      }
      if (!isCurrent(job, ref)) return "stop" as const
      switch (job.status) {
        case "interpreting":
          yield* interpret(ref, job)
          return "continue" as const
        case "planning": {
          // A provider that cannot quote now is waited out; one that refuses to quote has no offers.
          yield* plan(ref).pipe(
            Effect.tapError((error) => Effect.logWarning("quote failed; asking again", error.message)),
            Effect.retry({ schedule: waitOut, while: isUnanswered }),
            // `waitOut` never ends: what is left is the store's failure, which the activity waits out.
            Effect.catchIf(isUnanswered, Effect.die)
          )
          return "continue" as const
        }
        case "awaiting_approval": {
          const expiresAt = job.proposal?.status === "open" ? job.proposal.document.expiresAt : undefined
          if (expiresAt === undefined) return "stop" as const
          if ((yield* Clock.currentTimeMillis) < Date.parse(expiresAt)) return { waitUntil: expiresAt }
          yield* proposals.expire(ref.accountId, ref.jobId)
          return "continue" as const
        }
        case "executing": {
          // Blocked while an older revision's execution is being undone: wait here, in this one step.
          let claimed = yield* claimRun(ref)
          while (claimed === "blocked") {
            yield* Effect.sleep(timing.blockedWait)
            claimed = yield* claimRun(ref)
          }
          return claimed === "none" ? "stop" as const : "continue" as const
        }
        default:
          return "stop" as const
      }
    }).pipe(Effect.catchIf(isNotFound, () => Effect.succeed("stop" as const)))

  return Steps.of({ advance })
}))
