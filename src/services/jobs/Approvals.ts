import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import type { Principal } from "../../schema/ApiKey.ts"
import type { Unavailable } from "../../schema/Errors.ts"
import type { JobId } from "../../schema/JobRef.ts"
import type { Approval, ApprovalRequest } from "../../schema/Proposal.ts"
import * as JobStore from "./JobStore.ts"
import * as MemoryJobStore from "./MemoryJobStore.ts"
import type { UnknownJob } from "./rules/JobErrors.ts"
import type { RunRef } from "./rules/JobRecord.ts"
import * as Proposal from "./rules/Proposal.ts"
import type { DecisionError } from "./rules/Proposal.ts"
import * as SqlJobStore from "./SqlJobStore.ts"

/** What a claim came to: an execution started (its number), blocked by an older one being settled, or nothing to do. */
export type ClaimResult = "started" | "blocked" | "none"

/**
 * Decisions on proposals (recorded once, immutably, with the key that made them) and their consumption:
 * an execution claims the approval of the Job's current revision, under the fence, in one transaction.
 */
export class Approvals extends Context.Service<Approvals, {
  readonly decide: (
    principal: Principal,
    jobId: JobId,
    input: ApprovalRequest
  ) => Effect.Effect<Approval, UnknownJob | DecisionError | Unavailable>
  readonly claim: (ref: RunRef) => Effect.Effect<ClaimResult, UnknownJob | Unavailable>
}>()("Approvals") {}

/** An older revision's execution is still being settled: nothing is written, the claim waits. */
class Blocked extends Data.TaggedError("Blocked") {}
const blocked = new Blocked()

/** Both layers are this over `JobStore`: every write of an approval is a change of its Job. */
const make = Effect.gen(function*() {
  const store = yield* JobStore.JobStore
  return Approvals.of({
    decide: (principal, jobId, input) =>
      store.mutate(
        principal.accountId,
        jobId,
        (record, now) => Proposal.decide(record, input, principal.keyId, now)
      ).pipe(Effect.map((change) => change.approval!)),
    claim: (ref) =>
      store.mutate(ref.accountId, ref.jobId, (record, now) => {
        const claimed = Proposal.claim(record, ref, now)
        return claimed._tag === "Blocked" ? Result.fail(blocked) : Result.succeed(claimed.change)
      }).pipe(
        Effect.map((change): ClaimResult => change.events.length > 0 ? "started" : "none"),
        Effect.catchTag("Blocked", () => Effect.succeed<ClaimResult>("blocked"))
      )
  })
})

export const layerLive = Layer.effect(Approvals)(make).pipe(Layer.provide(SqlJobStore.layer))
export const layerTest = Layer.effect(Approvals)(make).pipe(Layer.provide(MemoryJobStore.layerMemory))
