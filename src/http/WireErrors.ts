import * as Effect from "effect/Effect"
import {
  CursorExpired,
  InvalidRequest,
  InvalidState,
  NotFound,
  ProposalExpired,
  ProposalMismatch,
  RevisionMismatch
} from "../schema/ApiErrors.ts"
import type { JobFailure } from "../services/jobs/JobErrors.ts"

/**
 * The one wire error of each refusal of the Job services: what every Job endpoint and an approval page
 * answer for it, and what an idempotent replay answers again.
 */
const refusals = {
  UnknownJob: ({ message }) => Effect.fail(new NotFound({ message })),
  StaleRevision: ({ message }) => Effect.fail(new RevisionMismatch({ message })),
  WrongState: ({ message }) => Effect.fail(new InvalidState({ message })),
  ProposalNotOpen: ({ message }) => Effect.fail(new ProposalMismatch({ message })),
  ProposalLapsed: ({ message }) => Effect.fail(new ProposalExpired({ message })),
  RejectedInput: ({ message }) => Effect.fail(new InvalidRequest({ message })),
  HistoryPruned: ({ message }) => Effect.fail(new CursorExpired({ message }))
} satisfies { readonly [F in JobFailure as F["_tag"]]: (failure: F) => Effect.Effect<never, unknown> }

type Refusals = typeof refusals

/** The errors of a call that fails with `E` once its refusals are their wire errors, as the table says. */
type Wired<E> = Exclude<E, JobFailure> | Effect.Error<ReturnType<Refusals[Extract<E, JobFailure>["_tag"]]>>

/**
 * Runs a service call with its refusals as their wire errors, and its other errors (`Unavailable`, ...)
 * as they are. (`Effect.catchTags` types a call with a handler for every refusal; this one's type
 * keeps only the wire errors of the refusals the call can make, as an endpoint declares them.)
 */
export function wire<A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Wired<E>, R>
export function wire<A, R>(effect: Effect.Effect<A, JobFailure, R>) {
  return Effect.catchTags(effect, refusals)
}
