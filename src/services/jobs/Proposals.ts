import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type { AccountId } from "../../schema/ApiKey.ts"
import { PositiveDuration } from "../../schema/Duration.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import type { JobId } from "../../schema/JobRef.ts"
import * as JobStore from "./JobStore.ts"
import { isNotFound, UnknownJob } from "./rules/JobErrors.ts"
import * as Proposal from "./rules/Proposal.ts"

/**
 * A Job's proposals, once presented (`Proposal.present`, from the provider's quotes, by the runner's
 * `Steps`): stored once as the RFC 8785 bytes their hash names, served as stored, superseded by a new
 * revision, a rejection or their expiry (`PROPOSAL_TTL`).
 */
export class Proposals extends Context.Service<Proposals, {
  /** The proposal's canonical bytes, exactly as hashed; `UnknownJob` for another account's Job or an unknown hash. */
  readonly document: (
    accountId: AccountId,
    jobId: JobId,
    hash: string
  ) => Effect.Effect<string, UnknownJob | Unavailable>
  /** Supersedes the Job's open proposal if it is past its `expiresAt` (the Job plans again); whether it did. */
  readonly expire: (accountId: AccountId, jobId: JobId) => Effect.Effect<boolean, Unavailable>
  /** `expire` for every open proposal past its `expiresAt` (the runner's sweep); answers how many. */
  readonly expireDue: Effect.Effect<number, Unavailable>
}>()("Proposals") {}

/** `PROPOSAL_TTL` (15 minutes): how long a proposal waits for a decision. */
export const ProposalConfig = Config.all({
  ttl: Config.schema(PositiveDuration, "PROPOSAL_TTL").pipe(Config.withDefault(Duration.minutes(15)))
})

const noProposal = (hash: string) => new UnknownJob({ message: `The Job has no proposal ${JSON.stringify(hash)}.` })

interface Reads {
  readonly bytes: (
    accountId: AccountId,
    jobId: JobId,
    hash: string
  ) => Effect.Effect<Option.Option<string>, UnknownJob | Unavailable>
  /** The Jobs whose open proposal expires at `now` or before, by the service's clock (as `expire` reads it). */
  readonly due: (
    now: string
  ) => Effect.Effect<ReadonlyArray<{ readonly accountId: AccountId; readonly jobId: JobId }>, Unavailable>
}

export const make = (reads: Reads) =>
  Effect.gen(function*() {
    const store = yield* JobStore.JobStore

    const expire = (accountId: AccountId, jobId: JobId) =>
      store.mutate(accountId, jobId, (record, now) => Result.succeed(Proposal.expire(record, now))).pipe(
        Effect.map((change) => change.events.length > 0),
        Effect.catchIf(isNotFound, () => Effect.succeed(false))
      )

    return Proposals.of({
      document: (accountId, jobId, hash) =>
        Effect.flatMap(
          reads.bytes(accountId, jobId, hash),
          Option.match({ onNone: () => Effect.fail(noProposal(hash)), onSome: Effect.succeed })
        ),
      expire,
      expireDue: Effect.flatMap(
        Effect.flatMap(JobStore.nowIso, reads.due),
        (due) =>
          Effect.forEach(due, ({ accountId, jobId }) => expire(accountId, jobId)).pipe(
            Effect.map((expired) => expired.filter(Boolean).length)
          )
      )
    })
  })
