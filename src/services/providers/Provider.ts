import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { Constraint, Objective } from "../../schema/Constraint.ts"
import type { JobId } from "../../schema/JobRef.ts"
import type { Money } from "../../schema/Money.ts"
import type { Offer, ProposalDocument, ProposalHash, Terms } from "../../schema/Proposal.ts"

/**
 * What the service asks of whoever does the work in the world (README.md, "Behind it"): offers
 * for a Job (`quote`), one side effect per idempotency key (`execute`), an independent read of what a key
 * did (`inspect`, which verification relies on), and undoing it (`cancel`).
 *
 * Every call that touches a side effect carries the key `{jobId}:{proposalHash}:{executionNumber}`: a
 * provider performs at most one side effect per key, however often it is sent, so a retried or resumed
 * execution never spends twice. No call is ever made inside a database transaction.
 */

/** An offer as a provider quotes it: what it is, what it costs, and its terms. */
export interface Quote {
  readonly offer: Offer
  readonly price: Money
  readonly terms: Terms
}

export interface QuoteRequest {
  readonly jobId: JobId
  readonly jobRevision: number
  readonly objective: Objective
  readonly constraints: ReadonlyArray<Constraint>
}

export interface ExecuteRequest {
  readonly key: string
  readonly proposalHash: ProposalHash
  readonly document: ProposalDocument
}

/** What an execution answered: the provider's reference for its side effect. */
export interface Receipt {
  readonly reference: string
}

/**
 * What a provider says a key did, read independently of the execution's answer: `succeeded` (the side
 * effect stands), `failed` (none happened), `compensated` (it happened and was undone).
 */
export interface Inspection {
  readonly key: string
  readonly state: "succeeded" | "failed" | "compensated"
  readonly reference: string
  readonly offerId: string
  readonly spent: Money
  readonly terms: Terms
}

/** Worth retrying with the same key: the provider could not answer now (5xx, connection refused, ...). */
export class ProviderTransient extends Data.TaggedError("ProviderTransient")<{ readonly message: string }> {}

/** Retrying cannot help: the provider refused (this offer cannot be had, the key cannot be undone, ...). */
export class ProviderPermanent extends Data.TaggedError("ProviderPermanent")<{ readonly message: string }> {}

/**
 * No answer in time: the outcome is unknown, not a failure. The side effect may have happened; the
 * service `inspect`s by key before it retries or compensates.
 */
export class ProviderTimeout extends Data.TaggedError("ProviderTimeout")<{ readonly message: string }> {}

export type ProviderError = ProviderTransient | ProviderPermanent | ProviderTimeout

export class Providers extends Context.Service<Providers, {
  /** The name proposals carry (`sandbox`, `http`). */
  readonly name: string
  /** Offers for the objective and constraints, best first; none when nothing can be had. */
  readonly quote: (request: QuoteRequest) => Effect.Effect<ReadonlyArray<Quote>, ProviderError>
  /** Performs the proposal's side effect once per key; the same key again answers the same receipt. */
  readonly execute: (request: ExecuteRequest) => Effect.Effect<Receipt, ProviderError>
  /** What the key did, or none when the provider never performed anything for it. */
  readonly inspect: (key: string) => Effect.Effect<Option.Option<Inspection>, ProviderTransient | ProviderTimeout>
  /** Undoes the key's side effect (a no-op for a key that did nothing or was undone already). */
  readonly cancel: (key: string) => Effect.Effect<void, ProviderError>
}>()("Providers") {}

/** The provider's idempotency key for one execution of one proposal. */
export const executionKey = (jobId: string, proposalHash: string, executionNumber: number) =>
  `${jobId}:${proposalHash}:${executionNumber}`

/** `PROVIDER`: `sandbox` (the default) or `http`. */
export const ProviderKind = Config.schema(Schema.Literals(["sandbox", "http"]), "PROVIDER").pipe(
  Config.withDefault("sandbox" as const)
)
