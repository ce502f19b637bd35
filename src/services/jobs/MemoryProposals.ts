import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type { ProposalHash } from "../../schema/Proposal.ts"
import * as JobStore from "./JobStore.ts"
import { findIn, JobMemory } from "./MemoryJobStore.ts"
import { make, Proposals } from "./Proposals.ts"
import * as Revision from "./rules/Revision.ts"

/** In memory, on the one store the Job family's memory layers share. */
export const layerMemory = Layer.effect(Proposals)(Effect.gen(function*() {
  const { state } = yield* JobMemory
  return yield* make({
    bytes: (accountId, jobId, hash) =>
      Effect.flatMap(Ref.get(state), (current) =>
        findIn(current, accountId, jobId) === undefined
          ? Effect.fail(JobStore.notFound(jobId))
          : Effect.succeed(Option.fromUndefinedOr(current.proposals.get(jobId)?.get(hash as ProposalHash)))),
    due: (now) =>
      Effect.map(Ref.get(state), (current) =>
        Array.from(current.jobs.values()).flatMap(({ record }) => {
          const until = Revision.openUntil(record)
          return until !== null && until <= now ? [{ accountId: record.accountId, jobId: record.id }] : []
        }))
  })
}))
